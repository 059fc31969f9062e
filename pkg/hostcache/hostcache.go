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

// Package hostcache watches the host objects that belong to simulators
// (Pods, Services, Secrets, NetworkPolicies, and the ServiceAccounts, Roles
// and RoleBindings of their kubeconfigs, labelled with one) and finds them by simulator.
// The registry reads status from it; the reconciler acts on it.
//
// It watches only the namespaces that hold a simulator, with one set of
// informers each, started when the first simulator of a namespace appears
// and stopped once the last one is gone. A simulator exists only where the
// namespace opted in (its Pod's dry run is refused elsewhere), so the
// server reads nothing anywhere else: a labelled object in any other
// namespace is never listed, and the server needs no read rights there.
// What it holds is trimmed to what is read (see trim).
//
// The server's own cluster has one cache of every kind. A cluster that
// hosts simulators for another has one of the kinds that go there
// (HostedKinds), told whose an object is by a signed claim
// (Options.Controlled) instead of an owner reference.
package hostcache

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	corev1informers "k8s.io/client-go/informers/core/v1"
	networkingv1informers "k8s.io/client-go/informers/networking/v1"
	rbacv1informers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/metadata/metadatalister"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// bySimulator indexes objects by "<namespace>/<simulator name>".
const bySimulator = "simulator"

// Options tune a Cache.
type Options struct {
	// Resync is the informers' resync period.
	Resync time.Duration
	// Linger keeps a namespace's informers this long after its last
	// simulator is gone, so that the reconciler's sweep that follows a
	// deletion still sees what is left, and a simulator made again at once
	// does not list the namespace anew.
	Linger time.Duration
	// SyncTimeout bounds how long a read of a namespace whose informers
	// have just started waits for them to sync.
	SyncTimeout time.Duration
	// Kinds are the resources the cache follows, of those it knows (see
	// HostedKinds); nil means all of them. A lister of another kind reads
	// as empty.
	Kinds []schema.GroupVersionResource
	// Controlled says whether a simulator controls obj: trim keeps those
	// objects whole and stubs the others. nil means that a Simulator is
	// its controller (an owner reference), which holds where the server's
	// own cluster keeps the objects; a hosting cluster has no Simulator to
	// refer to, and its objects carry a signed claim instead.
	Controlled func(obj metav1.Object) bool
}

// DefaultOptions are the server's.
func DefaultOptions() Options {
	return Options{Resync: 10 * time.Minute, Linger: 30 * time.Second, SyncTimeout: 10 * time.Second}
}

// Source tells the cache where simulators are: it calls added and deleted
// with the namespace and name of each simulator as it appears and goes (a
// simulator added twice counts once), and returns whether it has told of
// every simulator that existed when it started.
type Source func(added, deleted func(namespace, name string)) (synced func() bool, err error)

// The kinds of the cache, in the order of namespace.informers.
const (
	pods = iota
	services
	secrets
	networkPolicies
	roles
	serviceAccounts
	roleBindings
	numKinds
)

// HostedKinds are the kinds a simulator has in a hosting cluster: the
// accounts of its kubeconfigs (Roles, ServiceAccounts, RoleBindings) stay
// in the serving cluster, whose simulators/proxy they grant.
var HostedKinds = []schema.GroupVersionResource{
	kinds[pods].resource, kinds[services].resource, kinds[secrets].resource, kinds[networkPolicies].resource,
}

// kind is one resource of the cache.
type kind struct {
	resource schema.GroupVersionResource
	// informer makes the informer of the kind in one namespace.
	informer func(c *Cache, namespace string, indexers cache.Indexers) cache.SharedIndexInformer
	// metadataOnly kinds are watched through the metadata API: only their
	// metadata is read (who controls them), never their content.
	metadataOnly bool
}

var kinds = [numKinds]kind{
	pods: {resource: corev1.SchemeGroupVersion.WithResource("pods"), informer: func(c *Cache, ns string, ix cache.Indexers) cache.SharedIndexInformer {
		return corev1informers.NewFilteredPodInformer(c.client, ns, c.opts.Resync, ix, c.tweak)
	}},
	services: {resource: corev1.SchemeGroupVersion.WithResource("services"), informer: func(c *Cache, ns string, ix cache.Indexers) cache.SharedIndexInformer {
		return corev1informers.NewFilteredServiceInformer(c.client, ns, c.opts.Resync, ix, c.tweak)
	}},
	// Data is read: the credentials (trim keeps those alone).
	secrets: {resource: corev1.SchemeGroupVersion.WithResource("secrets"), informer: func(c *Cache, ns string, ix cache.Indexers) cache.SharedIndexInformer {
		return corev1informers.NewFilteredSecretInformer(c.client, ns, c.opts.Resync, ix, c.tweak)
	}},
	networkPolicies: {resource: networkingv1.SchemeGroupVersion.WithResource("networkpolicies"), informer: func(c *Cache, ns string, ix cache.Indexers) cache.SharedIndexInformer {
		return networkingv1informers.NewFilteredNetworkPolicyInformer(c.client, ns, c.opts.Resync, ix, c.tweak)
	}},
	roles: {resource: rbacv1.SchemeGroupVersion.WithResource("roles"), informer: func(c *Cache, ns string, ix cache.Indexers) cache.SharedIndexInformer {
		return rbacv1informers.NewFilteredRoleInformer(c.client, ns, c.opts.Resync, ix, c.tweak)
	}},
	serviceAccounts: {resource: corev1.SchemeGroupVersion.WithResource("serviceaccounts"), metadataOnly: true, informer: metadataInformer(corev1.SchemeGroupVersion.WithResource("serviceaccounts"))},
	roleBindings:    {resource: rbacv1.SchemeGroupVersion.WithResource("rolebindings"), metadataOnly: true, informer: metadataInformer(rbacv1.SchemeGroupVersion.WithResource("rolebindings"))},
}

func metadataInformer(gvr schema.GroupVersionResource) func(c *Cache, ns string, ix cache.Indexers) cache.SharedIndexInformer {
	return func(c *Cache, ns string, ix cache.Indexers) cache.SharedIndexInformer {
		return metadatainformer.NewFilteredMetadataInformer(c.metadata, gvr, ns, c.opts.Resync, ix, c.tweak).Informer()
	}
}

// Cache holds the host objects of every simulator, by namespace.
type Cache struct {
	client   kubernetes.Interface
	metadata metadata.Interface
	opts     Options
	selector string
	routers  [numKinds]*router
	// follows are the kinds of opts.Kinds.
	follows [numKinds]bool

	mu sync.RWMutex
	// ctx is Start's; nil before.
	ctx          context.Context
	sourceSynced func() bool
	namespaces   map[string]*namespace
	handlers     map[*Registration]struct{}
	// added is closed, and made anew, when a namespace is added.
	added chan struct{}
}

// New makes a cache that sees only objects labelled with a simulator, in
// the namespaces that hold one, so its size follows the number of
// simulators, not the size of the host. client reads the kinds whose
// content is used, metadataClient those whose metadata alone is.
func New(client kubernetes.Interface, metadataClient metadata.Interface, opts Options) (*Cache, error) {
	req, err := labels.NewRequirement(sim.LabelSimulator, selection.Exists, nil)
	if err != nil {
		return nil, err
	}
	follows, err := followed(opts.Kinds)
	if err != nil {
		return nil, err
	}
	if opts.Controlled == nil {
		opts.Controlled = controlled
	}
	c := &Cache{
		client:     client,
		metadata:   metadataClient,
		opts:       opts,
		selector:   labels.NewSelector().Add(*req).String(),
		follows:    follows,
		namespaces: map[string]*namespace{},
		handlers:   map[*Registration]struct{}{},
		added:      make(chan struct{}),
	}
	for k := range kinds {
		c.routers[k] = &router{cache: c, kind: k}
	}
	return c, nil
}

// followed are the cache's kinds among gvrs, all of them for none.
func followed(gvrs []schema.GroupVersionResource) ([numKinds]bool, error) {
	var out [numKinds]bool
	if gvrs == nil {
		for k := range out {
			out[k] = true
		}
		return out, nil
	}
	for _, gvr := range gvrs {
		k := slices.IndexFunc(kinds[:], func(kd kind) bool { return kd.resource == gvr })
		if k < 0 {
			return out, fmt.Errorf("the host cache cannot follow %s", gvr)
		}
		out[k] = true
	}
	return out, nil
}

func (c *Cache) tweak(o *metav1.ListOptions) { o.LabelSelector = c.selector }

// newIndexers are the indexes of every informer: a map of its own each,
// since an indexer keeps the map it is given.
func newIndexers() cache.Indexers {
	return cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, bySimulator: indexBySimulator}
}

func indexBySimulator(obj interface{}) ([]string, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	name, ok := m.GetLabels()[sim.LabelSimulator]
	if !ok {
		return nil, nil
	}
	return []string{Key(m.GetNamespace(), name)}, nil
}

func metaOf(obj interface{}) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("object %T has no metadata", obj)
	}
	return m, nil
}

// Key is the index key of a simulator.
func Key(namespace, name string) string { return namespace + "/" + name }

// Follow makes source say which namespaces the cache watches. Call it once,
// before Start.
func (c *Cache) Follow(source Source) error {
	synced, err := source(c.simulatorAdded, c.simulatorDeleted)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sourceSynced = synced
	return nil
}

// Start runs the informers of every namespace until ctx ends.
func (c *Cache) Start(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctx = ctx
	for _, n := range c.namespaces {
		n.run(ctx)
	}
	register(c)
	context.AfterFunc(ctx, func() { unregister(c) })
}

// HasSynced says whether the cache knows every namespace that holds a
// simulator. Each namespace's own informers may still be listing: the
// readers that need them wait for them (WaitForNamespace, SimulatorPods),
// so that a namespace whose reads fail (its opt-in withdrawn) stalls
// neither the server's readiness nor the other namespaces.
func (c *Cache) HasSynced() bool {
	c.mu.RLock()
	synced := c.sourceSynced
	c.mu.RUnlock()
	return synced == nil || synced()
}

// WaitForNamespace waits until the namespace is watched and its informers
// have synced (true), or ctx ends, or they have not synced SyncTimeout
// after they started (false): the reconciler acts on a namespace only once
// it sees it whole, not on an empty cache, and does not wait again and
// again on a namespace whose reads fail (its opt-in withdrawn).
func (c *Cache) WaitForNamespace(ctx context.Context, namespace string) bool {
	for {
		n, started, added := c.lookup(namespace)
		if n != nil {
			return n.wait(ctx, started, c.opts.SyncTimeout)
		}
		select {
		case <-added:
		case <-ctx.Done():
			return false
		}
	}
}

// lookup returns the namespace's informers (nil when it is not watched),
// when they started (zero before Start), and the channel closed when a
// namespace is next added.
func (c *Cache) lookup(namespace string) (n *namespace, started time.Time, added chan struct{}) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if n = c.namespaces[namespace]; n != nil {
		started = n.started
	}
	return n, started, c.added
}

// settle waits for a watched namespace's informers to sync, at most until
// SyncTimeout after they started; it returns at once for a namespace that
// is not watched or not started.
func (c *Cache) settle(namespace string) {
	n, started, _ := c.lookup(namespace)
	if n == nil || started.IsZero() {
		return
	}
	n.wait(context.Background(), started, c.opts.SyncTimeout)
}

// Services lists the simulators' Services.
func (c *Cache) Services() corelisters.ServiceLister {
	return corelisters.NewServiceLister(c.routers[services])
}

// Secrets lists the simulators' Secrets. Only a simulator's own Secrets
// have data, and only the credentials' keys (trim).
func (c *Cache) Secrets() corelisters.SecretLister {
	return corelisters.NewSecretLister(c.routers[secrets])
}

// NetworkPolicies lists the simulators' NetworkPolicies.
func (c *Cache) NetworkPolicies() networkinglisters.NetworkPolicyLister {
	return networkinglisters.NewNetworkPolicyLister(c.routers[networkPolicies])
}

// Roles lists the Roles of the simulators' kubeconfig accounts.
func (c *Cache) Roles() rbaclisters.RoleLister {
	return rbaclisters.NewRoleLister(c.routers[roles])
}

// ServiceAccounts lists the metadata of the simulators' kubeconfig accounts.
func (c *Cache) ServiceAccounts() metadatalister.Lister {
	return metadatalister.New(c.routers[serviceAccounts], kinds[serviceAccounts].resource)
}

// RoleBindings lists the metadata of the simulators' kubeconfig accounts' RoleBindings.
func (c *Cache) RoleBindings() metadatalister.Lister {
	return metadatalister.New(c.routers[roleBindings], kinds[roleBindings].resource)
}

// SimulatorPods returns the host Pods of a simulator (all generations). A
// namespace whose informers have just started is waited for (SyncTimeout),
// so that status is not computed from an empty cache.
func (c *Cache) SimulatorPods(namespace, name string) []*corev1.Pod {
	c.settle(namespace)
	objs, _ := c.routers[pods].ByIndex(bySimulator, Key(namespace, name))
	pods := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return pods
}

// PodsVersion is the resourceVersion up to which the cache has seen every
// change of the simulators' Pods in the namespace (its informer's last
// sync: an event, a list or a bookmark); "" before it has synced, or when
// the namespace is not watched.
func (c *Cache) PodsVersion(namespace string) string {
	n, _, _ := c.lookup(namespace)
	if n == nil || n.informers[pods] == nil {
		return ""
	}
	return n.informers[pods].LastSyncResourceVersion()
}

// Registration is an event handler of every informer of the cache.
type Registration struct {
	handler cache.ResourceEventHandler
}

// AddEventHandler adds handler to the informers of every namespace, those
// watched now and those watched later.
func (c *Cache) AddEventHandler(handler cache.ResourceEventHandler) (*Registration, error) {
	r := &Registration{handler: handler}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.namespaces {
		if err := n.addHandler(r); err != nil {
			for _, n := range c.namespaces {
				n.removeHandler(r)
			}
			return nil, err
		}
	}
	c.handlers[r] = struct{}{}
	return r, nil
}

// RemoveEventHandler removes a handler from every informer.
func (c *Cache) RemoveEventHandler(r *Registration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.handlers, r)
	for _, n := range c.namespaces {
		n.removeHandler(r)
	}
}
