/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package apiserver wires the sim.x-k8s.io group into a generic API server.
package apiserver

import (
	"context"
	"fmt"
	"net/http"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
	"sigs.k8s.io/simulator-apiserver/pkg/controller"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/hosting"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
	"sigs.k8s.io/simulator-apiserver/pkg/ownershipkey"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/sim/nodepool"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/sim/scenario"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/sim/simulator"
	"sigs.k8s.io/simulator-apiserver/pkg/site"
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
)

var (
	// Scheme knows every type the server reads or writes.
	Scheme = runtime.NewScheme()
	// Codecs serializes the types of Scheme.
	Codecs = serializer.NewCodecFactory(Scheme)
	// ParameterCodec decodes query strings, including the options of our
	// connect subresources (proxy, kubeconfig, api, ui).
	ParameterCodec = runtime.NewParameterCodec(Scheme)
)

func init() {
	install.Install(Scheme)
	// nodepools/scale speaks autoscaling/v1 Scale. There is no internal Scale
	// outside k8s.io/kubernetes, so the external type serves as internal too.
	utilruntime.Must(autoscalingv1.AddToScheme(Scheme))
	Scheme.AddKnownTypes(schema.GroupVersion{Group: autoscalingv1.GroupName, Version: runtime.APIVersionInternal}, &autoscalingv1.Scale{})

	// The generic server decodes options (ListOptions, ...) through this scheme.
	metav1.AddToGroupVersion(Scheme, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Group: "", Version: "v1"}
	Scheme.AddUnversionedTypes(unversioned,
		&metav1.Status{},
		&metav1.APIVersions{},
		&metav1.APIGroupList{},
		&metav1.APIGroup{},
		&metav1.APIResourceList{},
	)
}

// ExtraConfig is what our group needs beyond the generic server.
type ExtraConfig struct {
	// RESTOptionsGetter gives each resource its storage.
	RESTOptionsGetter generic.RESTOptionsGetter
	// Validation holds the server-configured limits of validation.
	Validation validation.Options
	// HostClient reaches the host cluster (--kubeconfig).
	HostClient kubernetes.Interface
	// HostCache watches the host objects of simulators.
	HostCache *hostcache.Cache
	// Records are where objects are kept; their cache serves reads at any version.
	Records *hoststore.Records
	// Namespace is the server's own namespace in the host.
	Namespace string
	// Kubeconfig says how users reach the host, for simulators/kubeconfig.
	Kubeconfig simulator.KubeconfigOptions
	// Hosting hosts simulators in other clusters (spec.hosting); nil
	// when --enable-hosting is off.
	Hosting *Hosting
}

// Hosting is what hosting simulators in other clusters takes: the clients
// and caches of those clusters, and the key the server signs its objects
// there with. Every replica runs both: reads need the caches, and the
// leader's reconciler the key.
type Hosting struct {
	Registry *hosting.Registry
	Keeper   *ownershipkey.Keeper
}

// sites is where simulators' objects are found, here and, with hosting,
// in hosting clusters.
func (c *ExtraConfig) sites() *site.Resolver {
	r := &site.Resolver{Client: c.HostClient, Cache: c.HostCache}
	if c.Hosting != nil {
		r.Hosting, r.Signer = c.Hosting.Registry, c.Hosting.Keeper.Signer
	}
	return r
}

// recordsEventer posts the records keeper's Events on the objects the
// records hold, by reference: the object itself may be unreadable or gone.
func recordsEventer(recorder record.EventRecorder) hoststore.Eventer {
	kinds := map[string]string{
		sim.Resource("simulators").String(): "Simulator",
		sim.Resource("nodepools").String():  "NodePool",
	}
	return func(resource, namespace, name string, uid types.UID, eventType, reason, message string) {
		kind, ok := kinds[resource]
		if !ok {
			return
		}
		ref := &corev1.ObjectReference{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: kind, Namespace: namespace, Name: name, UID: uid}
		recorder.Event(ref, eventType, reason, message)
	}
}

// Config is the whole configuration of sim-apiserver.
type Config struct {
	GenericConfig *genericapiserver.RecommendedConfig
	ExtraConfig   ExtraConfig
}

// Server is a running sim-apiserver.
type Server struct {
	GenericAPIServer *genericapiserver.GenericAPIServer
}

type completedConfig struct {
	GenericConfig genericapiserver.CompletedConfig
	ExtraConfig   *ExtraConfig
}

// CompletedConfig can only be made by Complete.
type CompletedConfig struct {
	*completedConfig
}

// Complete fills in what the caller left unset.
func (cfg *Config) Complete() CompletedConfig {
	return CompletedConfig{&completedConfig{cfg.GenericConfig.Complete(), &cfg.ExtraConfig}}
}

// New builds the server and installs the sim.x-k8s.io/v1alpha1 resources.
func (c completedConfig) New() (*Server, error) {
	genericServer, err := c.GenericConfig.New("sim-apiserver", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, err
	}
	hostCache, records := c.ExtraConfig.HostCache, c.ExtraConfig.Records
	// The host cache watches the namespaces that hold a simulator: it
	// learns which from the records, which every replica caches.
	if err := hostCache.Follow(func(added, deleted func(namespace, name string)) (func() bool, error) {
		return records.AddObjectHandler(sim.Resource("simulators").String(), added, deleted)
	}); err != nil {
		return nil, err
	}
	if err := genericServer.AddPostStartHook("start-host-caches", func(ctx genericapiserver.PostStartHookContext) error {
		hostCache.Start(ctx)
		// The records' keeper tells users, on their objects, of records
		// deleted, relabelled or damaged behind the server's back.
		broadcaster := record.NewBroadcaster(record.WithContext(ctx))
		broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.ExtraConfig.HostClient.CoreV1().Events("")})
		context.AfterFunc(ctx, broadcaster.Shutdown)
		records.SetEventer(recordsEventer(broadcaster.NewRecorder(Scheme, corev1.EventSource{Component: "sim-apiserver"})))
		records.Start(ctx)
		return nil
	}); err != nil {
		return nil, err
	}
	// simulators is the store, once built (below): the hosting follower
	// reads what is stored, starting after.
	var simulators *simulator.Storage
	if h := c.ExtraConfig.Hosting; h != nil {
		follower := site.NewFollower(c.ExtraConfig.sites(), func(ctx context.Context, namespace, name string) (site.Ref, bool, error) {
			s, err := simulators.Simulator.Stored(ctx, namespace, name)
			if apierrors.IsNotFound(err) {
				return site.Ref{}, false, nil
			}
			if err != nil {
				return site.Ref{}, false, err
			}
			return site.InternalRefOf(s), true, nil
		})
		// Every record's change, deletion included, is looked at.
		if _, err := records.AddObjectHandler(sim.Resource("simulators").String(), follower.Changed, follower.Changed); err != nil {
			return nil, err
		}
		if err := genericServer.AddPostStartHook("start-hosting", func(ctx genericapiserver.PostStartHookContext) error {
			go h.Keeper.Run(ctx)
			go h.Registry.Run(ctx)
			go follower.Run(ctx)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if err := genericServer.AddPostStartHook("start-reconcilers", func(ctx genericapiserver.PostStartHookContext) error {
		go func() {
			if err := controller.Run(ctx, controller.Config{
				Scheme:    Scheme,
				Loopback:  ctx.LoopbackClientConfig,
				Host:      c.ExtraConfig.HostClient,
				HostCache: hostCache,
				Sites:     c.ExtraConfig.sites(),
				Namespace: c.ExtraConfig.Namespace,
			}); err != nil {
				klog.FromContext(ctx).Error(err, "Running the reconcilers")
			}
		}()
		return nil
	}); err != nil {
		return nil, err
	}
	if err := genericServer.AddReadyzChecks(authenticationCheck(&c.GenericConfig.Authentication)); err != nil {
		return nil, err
	}
	// Status is computed from this cache: until it has synced, answers would be wrong.
	if err := genericServer.AddReadyzChecks(healthz.NamedCheck("host-cache-synced", func(*http.Request) error {
		if !hostCache.HasSynced() {
			return fmt.Errorf("the cache of simulators' host Pods, Services and Secrets does not know every namespace of simulators yet")
		}
		if !records.HasSynced() {
			return fmt.Errorf("the cache of records has not synced")
		}
		return nil
	})); err != nil {
		return nil, err
	}
	storage, simulators, err := c.storage()
	if err != nil {
		return nil, err
	}
	apiGroupInfo := genericapiserver.NewDefaultAPIGroupInfo(sim.GroupName, Scheme, ParameterCodec, Codecs)
	apiGroupInfo.NegotiatedSerializer = withoutProtobuf{Codecs}
	apiGroupInfo.VersionedResourcesStorageMap["v1alpha1"] = storage
	if err := genericServer.InstallAPIGroup(&apiGroupInfo); err != nil {
		return nil, fmt.Errorf("installing %s: %w", sim.GroupName, err)
	}
	return &Server{GenericAPIServer: genericServer}, nil
}

// storage is the group's storage, and the simulators' store in it.
func (c completedConfig) storage() (map[string]rest.Storage, *simulator.Storage, error) {
	access := inner.New(c.ExtraConfig.HostCache, c.ExtraConfig.HostCache.Secrets(), c.ExtraConfig.sites())
	simulators, err := simulator.NewStorage(Scheme, c.ExtraConfig.RESTOptionsGetter, c.ExtraConfig.Validation, simulator.Host{
		Sites:      c.ExtraConfig.sites(),
		PodsClient: c.ExtraConfig.HostClient.CoreV1(),
		Access:     access,
		Authorizer: c.GenericConfig.Authorization.Authorizer,
		Tokens:     c.ExtraConfig.HostClient.CoreV1(),
		Accounts:   c.ExtraConfig.HostCache.ServiceAccounts(),
		Kubeconfig: c.ExtraConfig.Kubeconfig,
	})
	if err != nil {
		return nil, nil, err
	}
	nodepools, err := nodepool.NewStorage(Scheme, c.ExtraConfig.RESTOptionsGetter, c.ExtraConfig.Validation)
	if err != nil {
		return nil, nil, err
	}
	scenarios, err := scenario.NewStorage(Scheme, c.ExtraConfig.RESTOptionsGetter, c.ExtraConfig.Validation, c.GenericConfig.Authorization.Authorizer)
	if err != nil {
		return nil, nil, err
	}
	return map[string]rest.Storage{
		"simulators":            simulators.Simulator,
		"simulators/status":     simulators.Status,
		"simulators/kubeconfig": simulators.Kubeconfig,
		"simulators/proxy":      simulators.Proxy,
		"simulators/api":        simulators.API,
		"simulators/ui":         simulators.UI,
		"nodepools":             nodepools.NodePool,
		"nodepools/status":      nodepools.Status,
		"nodepools/scale":       nodepools.Scale,
		"scenarios":             scenarios.Scenario,
		"scenarios/status":      scenarios.Status,
		"scenarios/report":      scenario.NewReportREST(scenarios.Scenario, simulators.Simulator, Scheme, access),
	}, simulators, nil
}

// withoutProtobuf serves the group in every format of the codec factory but
// protobuf: its types have no protobuf form. Offered, protobuf is what the
// host's namespace and garbage collectors ask for first, and their
// deletecollection then got a 500 after the deletion (encoding the deleted
// list failed), which stalls namespace deletion with
// NamespaceDeletionContentFailure. Without it they get JSON, as from a CRD.
type withoutProtobuf struct {
	runtime.NegotiatedSerializer
}

func (s withoutProtobuf) SupportedMediaTypes() []runtime.SerializerInfo {
	var out []runtime.SerializerInfo
	for _, info := range s.NegotiatedSerializer.SupportedMediaTypes() {
		if info.MediaType != runtime.ContentTypeProtobuf {
			out = append(out, info)
		}
	}
	return out
}
