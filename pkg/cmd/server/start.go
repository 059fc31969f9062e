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

// Package server holds sim-apiserver's options and its start command.
package server

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericfilters "k8s.io/apiserver/pkg/server/filters"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/util/compatibility"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	netutils "k8s.io/utils/net"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
	"sigs.k8s.io/simulator-apiserver/pkg/apiserver"
	simopenapi "sigs.k8s.io/simulator-apiserver/pkg/generated/openapi"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/hosting"
	"sigs.k8s.io/simulator-apiserver/pkg/limits"
	"sigs.k8s.io/simulator-apiserver/pkg/ownershipkey"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/sim/simulator"
	"sigs.k8s.io/simulator-apiserver/pkg/servingcert"
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
	"sigs.k8s.io/simulator-apiserver/pkg/version"
)

// DefaultNamespace is where the server keeps its records when neither
// --namespace nor POD_NAMESPACE says otherwise.
const DefaultNamespace = "sim-system"

// DefaultMemoryLimit is --memory-limit's default. The server's live heap
// is about 100 MiB with 500 NodePools at the size limit read by 32
// clients at once (test/integration TestFlood); with the runtime's default
// pacing (GOGC=100) its garbage took the process to 280-340 MiB. The soft
// limit makes the collector run before the heap reaches it, which keeps the
// process under 256 MiB; past it the runtime still grows the heap rather
// than thrash (it bounds the collector's CPU).
const DefaultMemoryLimit = "160Mi"

// Options are sim-apiserver's flags.
type Options struct {
	RecommendedOptions *genericoptions.RecommendedOptions
	// ServerRun holds request timeouts, in-flight limits and shutdown delays.
	ServerRun *genericoptions.ServerRunOptions
	// ComponentGlobalsRegistry holds the effective version and feature gates.
	ComponentGlobalsRegistry basecompatibility.ComponentGlobalsRegistry

	// Namespace is the server's own namespace on the host: its records live there.
	Namespace string
	// MaxNodePoolReplicas bounds nodepool spec.replicas.
	MaxNodePoolReplicas int32
	// EnableHosting admits simulators with spec.hosting (issue 36): off
	// until the server runs them in their hosting cluster.
	EnableHosting bool
	// Limits are the server's limits per namespace, beside the host's
	// ResourceQuotas.
	Limits *limits.Options
	// ExternalServerURL and ExternalServerCAFile say how users reach the host
	// apiserver, for the kubeconfigs the server hands out.
	ExternalServerURL    string
	ExternalServerCAFile string
	// ServingCertSecret, when set, is the Secret in Namespace where the
	// replicas keep the CA and the serving certificate they all serve, for
	// ServiceName; APIService's caBundle is kept equal to that CA.
	ServingCertSecret string
	ServiceName       string
	APIService        string
	// MemoryLimit is the Go runtime's soft memory limit (debug.SetMemoryLimit).
	MemoryLimit resource.QuantityValue

	StdOut io.Writer
	StdErr io.Writer
}

// NewOptions returns the defaults. There is no etcd: records live in the host.
func NewOptions(out, errOut io.Writer) *Options {
	o := &Options{
		RecommendedOptions:       genericoptions.NewRecommendedOptions("", apiserver.Codecs.LegacyCodec(v1alpha1.SchemeGroupVersion)),
		ServerRun:                genericoptions.NewServerRunOptions(),
		ComponentGlobalsRegistry: compatibility.DefaultComponentGlobalsRegistry,
		Namespace:                os.Getenv("POD_NAMESPACE"),
		MaxNodePoolReplicas:      validation.DefaultMaxNodePoolReplicas,
		Limits:                   limits.NewOptions(),
		ServiceName:              "sim-apiserver",
		MemoryLimit:              resource.QuantityValue{Quantity: resource.MustParse(DefaultMemoryLimit)},
		StdOut:                   out,
		StdErr:                   errOut,
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	o.RecommendedOptions.Etcd = nil
	// The host's ResourceQuotas count simulators and nodepools: the server
	// admits its own requests, the host never sees them.
	limits.Register(o.RecommendedOptions.Admission, o.Limits)
	o.RecommendedOptions.ExtraAdmissionInitializers = limits.Initializers
	return o
}

// AddFlags registers every flag on fs.
func (o *Options) AddFlags(cmd *cobra.Command) {
	flags := cmd.Flags()
	o.RecommendedOptions.AddFlags(flags)
	o.ServerRun.AddUniversalFlags(flags)
	flags.StringVar(&o.Namespace, "namespace", o.Namespace, "The server's own namespace in the host cluster, where it keeps its records (default: $POD_NAMESPACE, else "+DefaultNamespace+").")
	flags.Int32Var(&o.MaxNodePoolReplicas, "max-nodepool-replicas", o.MaxNodePoolReplicas, "Upper bound of a nodepool's spec.replicas.")
	flags.BoolVar(&o.EnableHosting, "enable-hosting", o.EnableHosting, "Admit simulators (and scenarios) with spec.hosting, run in another cluster. Off, creating one is refused as invalid.")
	o.Limits.AddFlags(flags)
	flags.StringVar(&o.ExternalServerURL, "external-server-url", o.ExternalServerURL, "The host apiserver's URL as users reach it, put in the kubeconfigs of simulators/kubeconfig (default: the URL this server reaches the host at, from --kubeconfig or in-cluster).")
	flags.StringVar(&o.ExternalServerCAFile, "external-server-ca-file", o.ExternalServerCAFile, "CA bundle of the host apiserver at --external-server-url (default: the CA of --kubeconfig or of the in-cluster config).")
	flags.StringVar(&o.ServingCertSecret, "serving-cert-secret", o.ServingCertSecret, "A Secret in --namespace where the server keeps a CA and the serving certificate for --service-name, made if absent and rotated, which every replica serves (instead of --tls-cert-file or --cert-dir).")
	flags.StringVar(&o.ServiceName, "service-name", o.ServiceName, "The Service in --namespace that the APIService routes to, the serving certificate's name (<service>.<namespace>.svc).")
	flags.Var(&o.MemoryLimit, "memory-limit", "The Go runtime's soft memory limit (as GOMEMLIMIT, which it overrides): the garbage collector runs more often as the server's memory nears it. 0 leaves the runtime's own (GOMEMLIMIT, else none).")
	flags.StringVar(&o.APIService, "apiservice", o.APIService, "An APIService whose spec.caBundle the server keeps equal to the CA of --serving-cert-secret.")
	// ServerRun registered the kube component (effective version, feature
	// gates) and added --feature-gates and --emulated-version.
	globalflag.AddGlobalFlags(flags, cmd.Name())
}

// Validate checks the flags.
func (o *Options) Validate() error {
	errs := o.RecommendedOptions.Validate()
	errs = append(errs, o.ServerRun.Validate()...)
	errs = append(errs, o.ComponentGlobalsRegistry.Validate()...)
	errs = append(errs, o.Limits.Validate()...)
	if o.Namespace == "" {
		errs = append(errs, fmt.Errorf("--namespace must not be empty"))
	}
	if o.ExternalServerURL != "" {
		if u, err := url.Parse(o.ExternalServerURL); err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			errs = append(errs, fmt.Errorf("--external-server-url must be https://host[:port], got %q", o.ExternalServerURL))
		}
	}
	if o.ServingCertSecret != "" && (o.RecommendedOptions.SecureServing.ServerCert.CertKey.CertFile != "" || o.RecommendedOptions.SecureServing.ServerCert.CertKey.KeyFile != "") {
		errs = append(errs, fmt.Errorf("--serving-cert-secret and --tls-cert-file/--tls-private-key-file exclude each other"))
	}
	if o.APIService != "" && o.ServingCertSecret == "" {
		errs = append(errs, fmt.Errorf("--apiservice needs --serving-cert-secret: its caBundle is that Secret's CA"))
	}
	if o.MaxNodePoolReplicas < 0 {
		errs = append(errs, fmt.Errorf("--max-nodepool-replicas must not be negative"))
	}
	if o.MemoryLimit.Sign() < 0 {
		errs = append(errs, fmt.Errorf("--memory-limit must not be negative"))
	}
	return utilerrors.NewAggregate(errs)
}

// Config turns the options into a server configuration.
func (o *Options) Config() (*apiserver.Config, error) {
	if o.ServingCertSecret == "" {
		if err := o.RecommendedOptions.SecureServing.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{netutils.ParseIPSloppy("127.0.0.1")}); err != nil {
			return nil, fmt.Errorf("creating self-signed certificates: %w", err)
		}
	}

	serverConfig := genericapiserver.NewRecommendedConfig(apiserver.Codecs)
	namer := openapi.NewDefinitionNamer(apiserver.Scheme)
	serverConfig.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(simopenapi.GetOpenAPIDefinitions, namer)
	serverConfig.OpenAPIConfig.Info.Title = "sim.x-k8s.io"
	serverConfig.OpenAPIConfig.Info.Version = version.Version
	serverConfig.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(simopenapi.GetOpenAPIDefinitions, namer)
	serverConfig.OpenAPIV3Config.Info.Title = "sim.x-k8s.io"
	serverConfig.OpenAPIV3Config.Info.Version = version.Version
	// The proxy subresource carries watches and upgraded streams, the api
	// subresource imports and exports whole scenarios: no request timeout.
	serverConfig.LongRunningFunc = genericfilters.BasicLongRunningRequestCheck(sets.NewString("watch", "proxy"), sets.NewString("proxy", "api"))
	serverConfig.BuildHandlerChainFunc = apiserver.BuildHandlerChain

	if err := o.ServerRun.ApplyTo(&serverConfig.Config); err != nil {
		return nil, err
	}
	if err := o.RecommendedOptions.ApplyTo(serverConfig); err != nil {
		return nil, err
	}

	// Every storage call is a host call: the client defaults (5 QPS) would
	// throttle the server to a crawl.
	hostConfig := rest.CopyConfig(serverConfig.ClientConfig)
	hostConfig.QPS, hostConfig.Burst = 200, 400
	// Records are ConfigMaps: protobuf decodes a list of hundreds of large
	// ones with a fraction of JSON's CPU and garbage.
	hostConfig.ContentType = runtime.ContentTypeProtobuf
	hostConfig.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	hostClient, err := kubernetes.NewForConfig(hostConfig)
	if err != nil {
		return nil, fmt.Errorf("making the host client: %w", err)
	}
	hostCA, err := o.hostCA(hostConfig)
	if err != nil {
		return nil, err
	}
	if o.ServingCertSecret != "" {
		if serverConfig.SecureServing.Cert, err = o.servingCert(hostConfig, hostClient); err != nil {
			return nil, err
		}
	}
	records := hoststore.NewRecords(hostClient, o.Namespace)
	hostMetadata, err := metadata.NewForConfig(hostConfig)
	if err != nil {
		return nil, fmt.Errorf("making the host metadata client: %w", err)
	}
	hostCache, err := hostcache.New(hostClient, hostMetadata, hostcache.DefaultOptions())
	if err != nil {
		return nil, err
	}

	hostingConfig, err := o.hosting(hostClient)
	if err != nil {
		return nil, err
	}

	return &apiserver.Config{
		GenericConfig: serverConfig,
		ExtraConfig: apiserver.ExtraConfig{
			RESTOptionsGetter: hoststore.RESTOptionsGetter{
				Codec:     apiserver.Codecs.LegacyCodec(v1alpha1.SchemeGroupVersion),
				Decorator: records.Decorator,
				// Lists cost API Priority and Fairness seats by what they read.
				CountTracker: serverConfig.StorageObjectCountTracker,
			},
			Validation: o.validationOptions(),
			HostClient: hostClient,
			HostCache:  hostCache,
			Records:    records,
			Namespace:  o.Namespace,
			Hosting:    hostingConfig,
			Kubeconfig: simulator.KubeconfigOptions{
				ServerURL: strings.TrimSuffix(cmp.Or(o.ExternalServerURL, hostConfig.Host), "/"),
				HostCA:    hostCA,
			},
		},
	}, nil
}

// validationOptions are the flags' rules of validation, which the
// strategies of every resource apply.
func (o *Options) validationOptions() validation.Options {
	return validation.Options{MaxNodePoolReplicas: o.MaxNodePoolReplicas, Hosting: o.EnableHosting}
}

// hostingQPS and hostingBurst bound each hosting cluster's client: the
// objects of its simulators, and their caches' lists.
const hostingQPS, hostingBurst = 50, 100

// hosting is what --enable-hosting takes, nil without it: the ownership
// key's keeper, and the registry of hosting clusters, whose caches keep
// whole only the objects the key signed.
func (o *Options) hosting(hostClient kubernetes.Interface) (*apiserver.Hosting, error) {
	if !o.EnableHosting {
		return nil, nil
	}
	keeper := ownershipkey.New(hostClient, o.Namespace)
	cacheOptions := hostcache.DefaultOptions()
	cacheOptions.Controlled = func(obj metav1.Object) bool {
		signer := keeper.Signer()
		if signer == nil {
			return false
		}
		_, ok := signer.Claimed(obj)
		return ok
	}
	registry, err := hosting.NewRegistry(hostClient, hosting.Options{
		Cache:  cacheOptions,
		Linger: cacheOptions.Linger,
		NewClients: func(cfg *rest.Config) (kubernetes.Interface, metadata.Interface, error) {
			cfg.QPS, cfg.Burst = hostingQPS, hostingBurst
			return hosting.NewClients(cfg)
		},
	})
	if err != nil {
		return nil, err
	}
	return &apiserver.Hosting{Registry: registry, Keeper: keeper}, nil
}

// servingCert is the certificate every replica serves, from the Secret
// they share; the generic server runs it (it is a ControllerRunner).
func (o *Options) servingCert(hostConfig *rest.Config, hostClient kubernetes.Interface) (*servingcert.Controller, error) {
	agg, err := aggregator.NewForConfig(hostConfig)
	if err != nil {
		return nil, fmt.Errorf("making the host aggregator client: %w", err)
	}
	service := o.ServiceName + "." + o.Namespace
	return servingcert.New(hostClient, agg, o.Namespace, o.ServingCertSecret, o.APIService,
		servingcert.DefaultPolicy(service+".svc", service, o.ServiceName))
}

// hostCA is the CA users verify the host apiserver with: the flag's, else
// the one sim-apiserver itself trusts for the host.
func (o *Options) hostCA(host *rest.Config) ([]byte, error) {
	file := o.ExternalServerCAFile
	if file == "" {
		if len(host.CAData) > 0 {
			return host.CAData, nil
		}
		file = host.CAFile
	}
	if file == "" {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the host CA: %w", err)
	}
	return data, nil
}

// Run starts the server and blocks until ctx ends.
func (o *Options) Run(ctx context.Context) error {
	if limit := o.MemoryLimit.Value(); limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	config, err := o.Config()
	if err != nil {
		return err
	}
	server, err := config.Complete().New()
	if err != nil {
		return err
	}
	return server.GenericAPIServer.PrepareRun().RunWithContext(ctx)
}

// NewCommand returns the sim-apiserver command.
func NewCommand(ctx context.Context, o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim-apiserver",
		Short: "Serves scheduler simulators (sim.x-k8s.io) as an aggregated API of the host cluster",
		PersistentPreRunE: func(*cobra.Command, []string) error {
			return o.ComponentGlobalsRegistry.Set()
		},
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
		SilenceUsage: true,
	}
	cmd.SetContext(ctx)
	o.AddFlags(cmd)
	return cmd
}
