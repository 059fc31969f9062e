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

package simulator

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata/metadatalister"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
	"sigs.k8s.io/simulator-apiserver/pkg/site"
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
)

// Storage is the REST storage of simulators and each subresource.
type Storage struct {
	Simulator  *REST
	Status     *StatusREST
	Kubeconfig *KubeconfigREST
	Proxy      *ProxyREST
	API        *APIREST
	UI         *UIREST
}

// Host is what the store needs of the host cluster.
type Host struct {
	// Sites find each simulator's Pod, which status is computed from:
	// in the host's cache, or its hosting cluster's.
	Sites *site.Resolver
	// PodsClient dry-runs the Pod of a new or changed spec.
	PodsClient corev1client.PodsGetter
	// Access reaches inner apiservers and simulator servers, for the proxy
	// and the api subresources.
	Access *inner.Access
	// Authorizer checks what the caller may do in the host beyond the
	// request itself: create pods for a podTemplate, the extra verb of
	// upgrade requests.
	Authorizer authorizer.Authorizer
	// Tokens mints the tokens of default kubeconfigs.
	Tokens corev1client.ServiceAccountsGetter
	// Accounts are the simulators' ServiceAccounts (their metadata): a
	// token is minted only for the one its simulator controls.
	Accounts metadatalister.Lister
	// Kubeconfig says how the host is reached from where kubeconfigs are used.
	Kubeconfig KubeconfigOptions
}

// NewStorage builds the simulators store over optsGetter's storage.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, opts validation.Options, host Host) (*Storage, error) {
	s := NewStrategy(scheme, opts)
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &sim.Simulator{} },
		NewListFunc:               func() runtime.Object { return &sim.SimulatorList{} },
		PredicateFunc:             Match,
		DefaultQualifiedResource:  sim.Resource("simulators"),
		SingularQualifiedResource: sim.Resource("simulator"),

		CreateStrategy:      s,
		UpdateStrategy:      s,
		DeleteStrategy:      s,
		ResetFieldsStrategy: s,

		TableConvertor: tableConvertor{},
		// Status is never stored: every object leaving the store gets it
		// computed from the backing Pod.
		Decorator: newStatusReader(host.Sites).decorate,
	}
	if err := store.CompleteWithOptions(&generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: GetAttrs}); err != nil {
		return nil, fmt.Errorf("completing the simulators store: %w", err)
	}
	return &Storage{
		Simulator:  &REST{Store: store, podAccess: podAccess{authorizer: host.Authorizer}, podCheck: podCheck{scheme: scheme, pods: host.PodsClient, sites: hostingSites(host.Sites)}, limit: hoststore.NewUserLimit(store)},
		Status:     &StatusREST{store: store},
		Kubeconfig: &KubeconfigREST{store: store, authorizer: host.Authorizer, access: host.Access, tokens: host.Tokens, accounts: host.Accounts, opts: host.Kubeconfig},
		Proxy:      &ProxyREST{store: store, access: host.Access, authorizer: host.Authorizer},
		API:        &APIREST{store: store, access: host.Access},
		UI:         &UIREST{store: store},
	}, nil
}

// REST serves simulators.
type REST struct {
	*genericregistry.Store
	podAccess podAccess
	podCheck  podCheck
	// limit keeps users' objects below a record's hard limit, so the
	// server's own updates (deletion, finalizer, annotations) always fit.
	limit hoststore.UserLimit
}

// Create checks that a caller who shapes the Pod may create Pods, then
// dry-runs the simulator's Pod in the host once the object is valid.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	return r.Store.Create(ctx, obj, r.limit.Create(r.podCheck.createValidation(r.podAccess.createValidation(createValidation))), options)
}

// Update does the checks of Create when the spec changes.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.Store.Update(ctx, name, objInfo,
		r.limit.Create(r.podCheck.createValidation(r.podAccess.createValidation(createValidation))),
		r.limit.Update(r.podCheck.updateValidation(r.podAccess.updateValidation(updateValidation))),
		forceAllowCreate, options)
}

// Stored reads a simulator as stored, without the status a read computes
// from its Pod: for the server's own readers of its spec and identity.
func (r *REST) Stored(ctx context.Context, namespace, name string) (*sim.Simulator, error) {
	ctx = genericapirequest.WithNamespace(ctx, namespace)
	key, err := r.KeyFunc(ctx, name)
	if err != nil {
		return nil, err
	}
	out := &sim.Simulator{}
	if err := r.Storage.Get(ctx, key, storage.GetOptions{}, out); err != nil {
		return nil, storeerr.InterpretGetError(err, r.DefaultQualifiedResource, name)
	}
	return out, nil
}

// hostingSites is sites if it reaches hosting clusters, else nil.
func hostingSites(sites *site.Resolver) *site.Resolver {
	if sites == nil || sites.Hosting == nil {
		return nil
	}
	return sites
}

var (
	_ rest.ShortNamesProvider = &REST{}
	_ rest.CategoriesProvider = &REST{}
)

// ShortNames lets `kubectl get sim` work.
func (*REST) ShortNames() []string { return []string{"sim"} }

// Categories lets `kubectl get simulation` list simulators and nodepools together.
func (*REST) Categories() []string { return []string{"simulation"} }

// StatusREST serves simulators/status. Status is computed on read from the
// backing Pod, so there is nothing for a client to write: it is read-only.
type StatusREST struct {
	store *genericregistry.Store
}

var _ rest.Getter = &StatusREST{}

func (r *StatusREST) New() runtime.Object { return &sim.Simulator{} }
func (r *StatusREST) Destroy()            {}

func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}
