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
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/secretwatch"
)

// Why a hosting Secret gives no clients (SecretError's Err).
var (
	ErrSecretNotRead  = errors.New("not read yet")
	ErrSecretNotFound = errors.New("not found")
	ErrNoKubeconfig   = fmt.Errorf("no %q key", contract.SourceKeyKubeconfig)
)

// SecretError is a hosting Secret that gives no usable kubeconfig:
// missing, without the key, or a kubeconfig RESTConfig refuses.
type SecretError struct {
	Key Key
	Err error
}

func (e *SecretError) Error() string { return fmt.Sprintf("the hosting Secret %s: %v", e.Key, e.Err) }
func (e *SecretError) Unwrap() error { return e.Err }

// swapRetry is how long a new kubeconfig's cache that has not synced
// waits before it is checked again.
const swapRetry = 5 * time.Second

// Entry is one hosting identity: the clients and the host cache that the
// kubeconfig of its Secret gives, and the simulators hosted with it.
type Entry struct {
	r   *Registry
	key Key
	// linger stops the entry; set, under r.mu, while it has no simulator.
	linger clock.Timer

	mu sync.Mutex
	// simulators are the hosting namespaces of its simulators, by key.
	simulators map[string]string
	handlers   []handler
	// secretErr is why the Secret gives no clients now; current, if any,
	// are the last good ones, kept for cleanup.
	secretErr error
	seen      bool
	// current are the clients in use; pending those of the Secret's new
	// data until their cache has synced.
	current, pending *clients

	// Set by start.
	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup
}

func newEntry(r *Registry, key Key, handlers []handler) *Entry {
	return &Entry{
		r: r, key: key, simulators: map[string]string{}, handlers: slices.Clone(handlers),
		secretErr: &SecretError{Key: key, Err: ErrSecretNotRead},
	}
}

// Client is the hosting cluster's client, nil until the Secret gave a
// kubeconfig. After the Secret went or went bad, it is the last good one,
// for cleanup; Health says so.
func (e *Entry) Client() kubernetes.Interface {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.current == nil {
		return nil
	}
	return e.current.client
}

// RESTConfig is a copy of the configuration of Client, nil with it.
func (e *Entry) RESTConfig() *rest.Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.current == nil {
		return nil
	}
	return rest.CopyConfig(e.current.config)
}

// Cache is the host cache of the hosting cluster (hostcache.HostedKinds,
// in the simulators' hosting namespaces), nil with Client.
func (e *Entry) Cache() *hostcache.Cache {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.current == nil {
		return nil
	}
	return e.current.cache
}

// Version changes when Client does (new credentials): whoever built on
// them (a transport, a client of the inner apiserver) builds anew. It is
// 0 without clients, and unique among the registry's.
func (e *Entry) Version() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.current == nil {
		return 0
	}
	return e.current.version
}

// Health is why the hosting cluster cannot be trusted now, nil if it
// can: the Secret's error (a SecretError), else the new kubeconfig's
// while it has not replaced the last, else the transport's (ErrUnreachable,
// ErrRefused). Nothing there is deleted while it is not nil.
func (e *Entry) Health() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.healthLocked()
}

func (e *Entry) healthLocked() error {
	if e.secretErr != nil {
		return e.secretErr
	}
	if e.current == nil {
		// Not so: clients are made from the Secret, or it has an error.
		return &SecretError{Key: e.key, Err: ErrSecretNotRead}
	}
	if e.pending != nil {
		if err := e.pending.health.Err(); err != nil {
			return fmt.Errorf("the new kubeconfig of the hosting Secret %s: %w", e.key, err)
		}
	}
	return e.current.health.Err()
}

// Simulators are the keys of the simulators hosted with the entry.
func (e *Entry) Simulators() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.simulatorsLocked()
}

func (e *Entry) simulatorsLocked() []string {
	out := make([]string, 0, len(e.simulators))
	for s := range e.simulators {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// add hosts simulator in namespace; it tells the caches.
func (e *Entry) add(simulator, namespace string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.simulators[simulator] = namespace
	for _, c := range []*clients{e.current, e.pending} {
		if c != nil {
			c.added(namespace, simulator)
		}
	}
}

// remove releases simulator and returns how many are left.
func (e *Entry) remove(simulator string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	namespace, ok := e.simulators[simulator]
	if ok {
		delete(e.simulators, simulator)
		for _, c := range []*clients{e.current, e.pending} {
			if c != nil {
				c.deleted(namespace, simulator)
			}
		}
	}
	return len(e.simulators)
}

func (e *Entry) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.simulators)
}

func (e *Entry) addHandler(hd handler) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.handlers = append(e.handlers, hd)
	return errors.Join(e.current.addHandler(hd), e.pending.addHandler(hd))
}

func (e *Entry) removeHandler(id uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.handlers = slices.DeleteFunc(e.handlers, func(hd handler) bool { return hd.id == id })
	e.current.removeHandler(id)
	e.pending.removeHandler(id)
}

// start follows the Secret, in a one-object informer of the serving
// cluster, until ctx ends or stop.
func (e *Entry) start(ctx context.Context) {
	e.mu.Lock()
	e.ctx, e.cancel = context.WithCancel(ctx)
	ctx = e.ctx
	e.mu.Unlock()
	w, err := secretwatch.Start(ctx, e.r.serving, e.key.Namespace, e.key.SecretName, e.r.opts.Cache.Resync,
		cache.ResourceEventHandlerFuncs{
			AddFunc:    e.secretSeen,
			UpdateFunc: func(_, obj any) { e.secretSeen(obj) },
			DeleteFunc: e.secretGone,
		})
	if err != nil {
		// Only a stopped informer refuses a handler, and this one never ran.
		utilruntime.HandleError(err)
		return
	}
	e.running.Go(w.Wait)
	e.running.Go(func() {
		// Listed, and the handler told of no Secret of that name (the
		// registration's HasSynced: the handler has had the list, not
		// only the store): missing, not unread.
		if cache.WaitForCacheSync(ctx.Done(), w.HasSynced) {
			e.update(func() []*clients {
				if !e.seen {
					e.secretErr = &SecretError{Key: e.key, Err: ErrSecretNotFound}
				}
				return nil
			})
		}
	})
}

// stop stops following the Secret and the caches, and returns once the
// entry's own goroutines have ended.
func (e *Entry) stop() {
	e.mu.Lock()
	cancel := e.cancel
	e.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	e.running.Wait()
	e.mu.Lock()
	current, pending := e.current, e.pending
	e.mu.Unlock()
	current.stop()
	pending.stop()
}

// secretSeen takes the Secret's kubeconfig: the same as in use is nothing;
// new data makes new clients, used at once if there are none, else once
// their cache has synced (awaitSwap).
func (e *Entry) secretSeen(obj any) {
	secret, ok := obj.(*corev1.Secret)
	if !ok {
		return
	}
	kubeconfig := secret.Data[contract.SourceKeyKubeconfig]
	e.update(func() []*clients {
		e.seen = true
		if len(kubeconfig) == 0 {
			e.secretErr = &SecretError{Key: e.key, Err: ErrNoKubeconfig}
			return e.dropPending()
		}
		if e.current != nil && bytes.Equal(e.current.kubeconfig, kubeconfig) {
			e.secretErr = nil
			return e.dropPending()
		}
		if e.pending != nil && bytes.Equal(e.pending.kubeconfig, kubeconfig) {
			e.secretErr = nil
			return nil
		}
		next, err := e.newClients(kubeconfig)
		if err != nil {
			e.secretErr = &SecretError{Key: e.key, Err: err}
			return e.dropPending()
		}
		e.secretErr = nil
		next.start(e.ctx)
		if e.current == nil {
			e.current = next
			return nil
		}
		stopped := e.dropPending()
		e.pending = next
		e.running.Go(func() { e.awaitSwap(next) })
		return stopped
	})
}

// secretGone keeps the clients, for cleanup, and says the Secret is gone.
func (e *Entry) secretGone(any) {
	e.update(func() []*clients {
		e.secretErr = &SecretError{Key: e.key, Err: ErrSecretNotFound}
		return e.dropPending()
	})
}

// dropPending forgets the pending clients and returns them to stop.
// Called with e.mu held.
func (e *Entry) dropPending() []*clients {
	p := e.pending
	e.pending = nil
	return []*clients{p}
}

// update runs change under e.mu, stops the clients it returns, and
// calls OnChange if Health or the clients changed.
func (e *Entry) update(change func() (stop []*clients)) {
	e.mu.Lock()
	before, version := e.healthText(), e.current
	stop := change()
	changed := e.healthText() != before || e.current != version
	simulators := e.simulatorsLocked()
	e.mu.Unlock()
	for _, c := range stop {
		c.stop()
	}
	if changed && e.r.opts.OnChange != nil {
		e.r.opts.OnChange(simulators)
	}
}

func (e *Entry) healthText() string {
	if err := e.healthLocked(); err != nil {
		return err.Error()
	}
	return ""
}

// awaitSwap makes next current once its cache has synced every hosting
// namespace, and stops the last; until then the last serve. Clients that
// never sync (refused, unreachable) wait, their Health in the entry's,
// until the Secret changes again or the entry stops.
func (e *Entry) awaitSwap(next *clients) {
	for !e.synced(next) {
		select {
		case <-next.ctx.Done():
			return
		case <-e.r.opts.Clock.After(swapRetry):
		}
	}
	e.update(func() []*clients {
		if e.pending != next {
			return nil
		}
		last := e.current
		e.current, e.pending = next, nil
		return []*clients{last}
	})
}

// synced says whether c's cache has synced the namespaces of the entry's
// simulators, waiting up to the cache's SyncTimeout for each.
func (e *Entry) synced(c *clients) bool {
	e.mu.Lock()
	namespaces := make([]string, 0, len(e.simulators))
	for _, ns := range e.simulators {
		namespaces = append(namespaces, ns)
	}
	e.mu.Unlock()
	timeout := e.r.opts.Cache.SyncTimeout
	if timeout <= 0 {
		timeout = swapRetry
	}
	for _, ns := range namespaces {
		// Bounded: a namespace released meanwhile is never added.
		ctx, cancel := context.WithTimeout(c.ctx, timeout)
		ok := c.cache.WaitForNamespace(ctx, ns)
		cancel()
		if !ok {
			return false
		}
	}
	return true
}

// healthChanged tells OnChange of a change of c's transport, if c is the
// entry's.
func (e *Entry) healthChanged(c *clients) {
	e.mu.Lock()
	ours := c == e.current || c == e.pending
	simulators := e.simulatorsLocked()
	e.mu.Unlock()
	if ours && e.r.opts.OnChange != nil {
		e.r.opts.OnChange(simulators)
	}
}
