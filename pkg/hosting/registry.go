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

package hosting

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
)

// Key names a hosting identity: a kubeconfig Secret of a serving
// namespace. Two Secrets for one cluster are two identities, each with
// its own clients and cache, since they may be allowed different things.
type Key struct {
	// Namespace is the Secret's namespace in the serving cluster, the
	// simulators'.
	Namespace string
	// SecretName is spec.hosting.secretName.
	SecretName string
}

func (k Key) String() string { return k.Namespace + "/" + k.SecretName }

// ClientFactory makes the clients of a hosting cluster's configuration.
type ClientFactory func(*rest.Config) (kubernetes.Interface, metadata.Interface, error)

// NewClients is the ClientFactory of real clusters.
func NewClients(cfg *rest.Config) (kubernetes.Interface, metadata.Interface, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	return client, meta, nil
}

// Options tune a Registry.
type Options struct {
	// Cache are the options of each entry's host cache. Kinds is always
	// hostcache.HostedKinds; Controlled, which tells a simulator's objects
	// there (their signature), is required.
	Cache hostcache.Options
	// Linger keeps an entry, its clients and its cache, this long after
	// its last simulator is released, as the host cache keeps a namespace:
	// the sweep that follows a deletion still sees what is left, and a
	// simulator made again at once does not list the cluster anew.
	Linger time.Duration
	// OnChange, if not nil, is called with the simulators of an entry
	// (their keys, as given to Acquire) when its Health or its clients
	// change. It runs outside the registry's locks and should be quick
	// (enqueue).
	OnChange func(simulators []string)
	// NewClients makes an entry's clients; nil is NewClients.
	NewClients ClientFactory
	// Clock times Linger; nil is the real clock.
	Clock clock.WithDelayedExecution
}

// Registry holds, for each hosting identity that simulators name
// (spec.hosting), the clients and the host cache of that cluster, built
// from the kubeconfig Secret and rebuilt when its data changes. Every
// replica keeps one: reads need the caches, not only the leader.
type Registry struct {
	serving kubernetes.Interface
	opts    Options
	// versions numbers the clients the registry makes (Entry.Version).
	versions atomic.Uint64

	mu sync.Mutex
	// ctx is Run's; nil before.
	ctx     context.Context
	entries map[Key]*Entry
	// simulators are the Acquired simulators, by key.
	simulators map[string]use
	handlers   []handler
	// handlerIDs numbers the handlers (RemoveEventHandler).
	handlerIDs uint64
}

// handler is an event handler of the entries' caches, with the id it is
// taken off by.
type handler struct {
	id uint64
	h  cache.ResourceEventHandler
}

// use is where a simulator is hosted.
type use struct {
	key       Key
	namespace string
}

// NewRegistry makes a registry that reads the kubeconfig Secrets through
// serving, the client of the cluster that serves the API.
func NewRegistry(serving kubernetes.Interface, opts Options) (*Registry, error) {
	if opts.Cache.Controlled == nil {
		return nil, errors.New("the hosting registry needs Cache.Controlled: an owner reference means nothing in a hosting cluster")
	}
	opts.Cache.Kinds = hostcache.HostedKinds
	if opts.NewClients == nil {
		opts.NewClients = NewClients
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Registry{serving: serving, opts: opts, entries: map[Key]*Entry{}, simulators: map[string]use{}}, nil
}

// Run starts the entries, those acquired before and after, and stops
// them all when ctx ends; it returns once they have stopped.
func (r *Registry) Run(ctx context.Context) {
	r.mu.Lock()
	r.ctx = ctx
	for _, e := range r.entries {
		e.start(ctx)
	}
	r.mu.Unlock()
	<-ctx.Done()
	r.mu.Lock()
	entries := make([]*Entry, 0, len(r.entries))
	for _, e := range r.entries {
		if e.linger != nil {
			e.linger.Stop()
		}
		entries = append(entries, e)
	}
	r.entries = map[Key]*Entry{}
	r.mu.Unlock()
	for _, e := range entries {
		e.stop()
	}
}

// Acquire says that the simulator of key simulator is hosted where the
// Secret secretName of servingNamespace says, in its namespace
// hostingNamespace. The entry of that Secret starts with its first
// simulator. Acquiring again is nothing; naming another place (a new
// simulator of the same name) releases the first.
func (r *Registry) Acquire(servingNamespace, secretName, hostingNamespace, simulator string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := Key{Namespace: servingNamespace, SecretName: secretName}
	want := use{key: key, namespace: hostingNamespace}
	if u, ok := r.simulators[simulator]; ok {
		if u == want {
			return
		}
		r.release(simulator)
	}
	e := r.entries[key]
	if e == nil {
		e = newEntry(r, key, r.handlers)
		r.entries[key] = e
		if r.ctx != nil {
			e.start(r.ctx)
		}
	}
	if e.linger != nil {
		e.linger.Stop()
		e.linger = nil
	}
	r.simulators[simulator] = want
	e.add(simulator, hostingNamespace)
}

// Release says that the simulator is hosted no more (it is gone, its
// objects removed). Its entry stops Linger after its last simulator.
func (r *Registry) Release(simulator string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.release(simulator)
}

// release is Release with r.mu held.
func (r *Registry) release(simulator string) {
	u, ok := r.simulators[simulator]
	if !ok {
		return
	}
	delete(r.simulators, simulator)
	e := r.entries[u.key]
	if e == nil || e.remove(simulator) > 0 || e.linger != nil {
		return
	}
	e.linger = r.opts.Clock.AfterFunc(r.opts.Linger, func() { r.stopIdle(e) })
}

// stopIdle stops e if it still has no simulator.
func (r *Registry) stopIdle(e *Entry) {
	r.mu.Lock()
	if r.entries[e.key] != e || e.count() > 0 {
		r.mu.Unlock()
		return
	}
	delete(r.entries, e.key)
	ctx := r.ctx
	r.mu.Unlock()
	e.stop()
	if ctx != nil {
		klog.FromContext(ctx).V(2).Info("Stopped following a hosting cluster: it hosts no simulator", "secret", e.key.String())
	}
}

// Get returns the entry of the Secret secretName of servingNamespace,
// if a simulator acquired it (or did within Linger).
func (r *Registry) Get(servingNamespace, secretName string) (*Entry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.entries[Key{Namespace: servingNamespace, SecretName: secretName}]
	return e, ok
}

// AddEventHandler adds h to the cache of every entry, those there now and
// those made later, and to the caches that replace them. remove takes it
// off them all (a reconciler's term that ends: a handler left on a cache
// keeps its listener's goroutines).
func (r *Registry) AddEventHandler(h cache.ResourceEventHandler) (remove func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handlerIDs++
	hd := handler{id: r.handlerIDs, h: h}
	r.handlers = append(r.handlers, hd)
	var errs []error
	for _, e := range r.entries {
		errs = append(errs, e.addHandler(hd))
	}
	return func() { r.removeHandler(hd.id) }, errors.Join(errs...)
}

func (r *Registry) removeHandler(id uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handlers = slices.DeleteFunc(r.handlers, func(hd handler) bool { return hd.id == id })
	for _, e := range r.entries {
		e.removeHandler(id)
	}
}
