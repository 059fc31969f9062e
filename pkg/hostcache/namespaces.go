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

package hostcache

import (
	"context"
	"sync"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// namespace is the informers of one namespace that holds simulators.
type namespace struct {
	name string
	// informers are nil for the kinds the cache does not follow.
	informers [numKinds]cache.SharedIndexInformer
	// simulators are those the source told of; none: stopping after Linger.
	simulators sets.Set[string]
	linger     *time.Timer
	regs       map[*Registration][numKinds]cache.ResourceEventHandlerRegistration

	// Set by run.
	started time.Time
	cancel  context.CancelFunc
	running sync.WaitGroup
	// synced closes once every informer has synced.
	synced chan struct{}
}

// newNamespace makes the informers of a namespace, with every handler of
// the cache on them; run starts them. Called with c.mu held.
func (c *Cache) newNamespace(name string) *namespace {
	n := &namespace{
		name:       name,
		simulators: sets.New[string](),
		regs:       map[*Registration][numKinds]cache.ResourceEventHandlerRegistration{},
		synced:     make(chan struct{}),
	}
	for k, kind := range kinds {
		if !c.follows[k] {
			continue
		}
		inf := kind.informer(c, name, newIndexers())
		// Before the informer runs, so it cannot fail.
		utilruntime.Must(inf.SetTransform(trim(k, c.opts.Controlled)))
		n.informers[k] = inf
	}
	for r := range c.handlers {
		if err := n.addHandler(r); err != nil {
			// Only a stopped informer refuses a handler, and these never ran.
			utilruntime.HandleError(err)
		}
	}
	return n
}

// run starts the informers under ctx, the cache's. Called with c.mu held.
func (n *namespace) run(ctx context.Context) {
	ctx, n.cancel = context.WithCancel(ctx)
	n.started = time.Now()
	checkers := make([]cache.DoneChecker, 0, numKinds)
	for _, inf := range n.informers {
		if inf == nil {
			continue
		}
		n.running.Go(func() { inf.RunWithContext(ctx) })
		checkers = append(checkers, inf.HasSyncedChecker())
	}
	go func() {
		if cache.WaitFor(ctx, "", checkers...) {
			close(n.synced)
		}
	}()
}

// stop stops the informers and returns once they have. Called without c.mu.
func (n *namespace) stop() {
	if n.cancel != nil {
		n.cancel()
	}
	n.running.Wait()
}

// wait waits for the informers to sync (true), or ctx to end, or timeout
// to pass since they started (false). Not started, only ctx bounds it; a
// zero timeout is none.
func (n *namespace) wait(ctx context.Context, started time.Time, timeout time.Duration) bool {
	select {
	case <-n.synced:
		return true
	default:
	}
	var deadline <-chan time.Time
	if !started.IsZero() && timeout > 0 {
		t := time.NewTimer(time.Until(started.Add(timeout)))
		defer t.Stop()
		deadline = t.C
	}
	select {
	case <-n.synced:
		return true
	case <-ctx.Done():
		return false
	case <-deadline:
		return false
	}
}

func (n *namespace) addHandler(r *Registration) error {
	var regs [numKinds]cache.ResourceEventHandlerRegistration
	for k, inf := range n.informers {
		if inf == nil {
			continue
		}
		reg, err := inf.AddEventHandler(r.handler)
		if err != nil {
			n.regs[r] = regs
			n.removeHandler(r)
			return err
		}
		regs[k] = reg
	}
	n.regs[r] = regs
	return nil
}

func (n *namespace) removeHandler(r *Registration) {
	regs, ok := n.regs[r]
	if !ok {
		return
	}
	delete(n.regs, r)
	for k, reg := range regs {
		if reg == nil {
			continue
		}
		if err := n.informers[k].RemoveEventHandler(reg); err != nil {
			utilruntime.HandleError(err)
		}
	}
}

// simulatorAdded watches the simulator's namespace, from its first simulator on.
func (c *Cache) simulatorAdded(namespace, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.namespaces[namespace]
	if n == nil {
		n = c.newNamespace(namespace)
		if c.ctx != nil {
			n.run(c.ctx)
			klog.FromContext(c.ctx).V(2).Info("Watching the simulators' host objects of a namespace", "namespace", namespace)
		}
		c.namespaces[namespace] = n
		close(c.added)
		c.added = make(chan struct{})
	}
	if n.linger != nil {
		n.linger.Stop()
		n.linger = nil
	}
	n.simulators.Insert(name)
}

// simulatorDeleted stops watching the namespace Linger after its last
// simulator is gone (its record is deleted once its host objects are).
func (c *Cache) simulatorDeleted(namespace, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.namespaces[namespace]
	if n == nil {
		return
	}
	n.simulators.Delete(name)
	if n.simulators.Len() > 0 || n.linger != nil {
		return
	}
	n.linger = time.AfterFunc(c.opts.Linger, func() { c.stopIdle(n) })
}

// stopIdle stops watching n's namespace if it still holds no simulator.
func (c *Cache) stopIdle(n *namespace) {
	c.mu.Lock()
	if c.namespaces[n.name] != n || n.simulators.Len() > 0 {
		c.mu.Unlock()
		return
	}
	delete(c.namespaces, n.name)
	for r := range n.regs {
		n.removeHandler(r)
	}
	ctx := c.ctx
	c.mu.Unlock()
	n.stop()
	if ctx != nil {
		klog.FromContext(ctx).V(2).Info("Stopped watching the simulators' host objects of a namespace: it holds no simulator", "namespace", n.name)
	}
}
