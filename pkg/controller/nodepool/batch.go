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

package nodepool

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// errPoolChanged is the cause of a batch stopped because its pool's spec
// changed or the pool is being deleted.
var errPoolChanged = errors.New("the pool changed")

// batch is a pool's running batch of Node writes, made for one generation.
type batch struct {
	uid        types.UID
	generation int64
	cancel     context.CancelCauseFunc
	// stopped is closed when the batch's context ends.
	stopped <-chan struct{}
}

// outdatedBy says whether np, the pool as it is now, no longer wants what
// the batch writes.
func (b *batch) outdatedBy(np *v1alpha1.NodePool) bool {
	return np == nil || np.UID != b.uid || np.Generation != b.generation || np.DeletionTimestamp != nil
}

// startBatch returns the context of a batch of Node writes for np's
// generation. The context is cancelled when the pool's spec changes or the
// pool goes, so that a scale from 5,000 to 10 does not wait for 5,000
// creates: the next sync works to the new spec. done must be called when the
// batch ends.
func (c *Controller) startBatch(ctx context.Context, np *v1alpha1.NodePool) (_ context.Context, done func()) {
	key := np.Namespace + "/" + np.Name
	ctx, cancel := context.WithCancelCause(ctx)
	b := &batch{uid: np.UID, generation: np.Generation, cancel: cancel, stopped: ctx.Done()}
	c.mu.Lock()
	c.batches[key] = b
	c.mu.Unlock()
	// The informer updates its store before it calls handlers: a change that
	// came before the batch was registered is in the lister now.
	cur, err := c.pools.NodePools(np.Namespace).Get(np.Name)
	if err != nil {
		cur = nil
	}
	if b.outdatedBy(cur) {
		cancel(errPoolChanged)
	}
	return ctx, func() {
		c.mu.Lock()
		if c.batches[key] == b {
			delete(c.batches, key)
		}
		c.mu.Unlock()
		cancel(nil)
	}
}

// stopOutdatedBatch stops the running batch of the pool of a pool event if
// the event says its spec changed or the pool goes. deleted: the event is a
// deletion, whose object is the pool's last state (without a
// deletionTimestamp when it had no finalizer left), not a pool that is.
func (c *Controller) stopOutdatedBatch(obj interface{}, deleted bool) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	np, _ := obj.(*v1alpha1.NodePool)
	if deleted {
		np = nil
	}
	c.mu.Lock()
	b := c.batches[key]
	c.mu.Unlock()
	if b != nil && b.outdatedBy(np) {
		b.cancel(errPoolChanged)
	}
}

// poolMemory is what the reconciler remembers of a pool's writes between
// syncs, where its Node cache may not show them yet. Only the pool's own
// sync (one at a time, by the workqueue) changes it, under Controller.mu.
type poolMemory struct {
	// gone holds, by name, the UIDs of Nodes the pool deleted: while the
	// cache still shows one, it is counted as absent, so that a stale cache
	// never makes a pool Ready with Nodes that no longer exist.
	gone map[string]types.UID
	// unsure names Nodes whose write a stopped batch cut short (it may or
	// may not have happened) or that were found replaced by others: the
	// next sync reads them from the simulator.
	unsure []string
	// taken is the last message that reported Node names taken by others:
	// an Event is posted when it changes, not at every sync.
	taken string
}

func (c *Controller) memoryOf(uid types.UID) *poolMemory {
	m := c.memory[uid]
	if m == nil {
		m = &poolMemory{gone: map[string]types.UID{}}
		c.memory[uid] = m
	}
	return m
}

// remember records what a batch wrote and left unsure.
func (c *Controller) remember(uid types.UID, t *tally) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.memoryOf(uid)
	for name, u := range t.gone {
		m.gone[name] = u
	}
	m.unsure = append(m.unsure, t.unsure...)
}

// nodesOf returns the pool's Nodes as far as the reconciler knows: the
// cache's, less the ones it deleted that the cache still shows.
func (c *Controller) nodesOf(np *v1alpha1.NodePool, cl *cluster) []*corev1.Node {
	nodes := cl.PoolNodes(np.Name)
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.memory[np.UID]
	if m == nil || len(m.gone) == 0 {
		return nodes
	}
	kept := make([]*corev1.Node, 0, len(nodes))
	stale := map[string]bool{}
	for _, n := range nodes {
		if uid, ok := m.gone[n.Name]; ok && uid == n.UID {
			stale[n.Name] = true
			continue
		}
		kept = append(kept, n)
	}
	// What the cache no longer shows needs no remembering.
	for name := range m.gone {
		if !stale[name] {
			delete(m.gone, name)
		}
	}
	return kept
}

// resolveUnsure reads from the simulator the Nodes whose writes a stopped
// batch cut short, and returns nodes (the pool's, from nodesOf) corrected by
// what it found: a create that happened is a Node the cache may not show
// yet, a delete that happened one it may still show.
func (c *Controller) resolveUnsure(ctx context.Context, np *v1alpha1.NodePool, cl *cluster, nodes []*corev1.Node) ([]*corev1.Node, error) {
	c.mu.Lock()
	m := c.memory[np.UID]
	var names []string
	if m != nil {
		names, m.unsure = m.unsure, nil
	}
	c.mu.Unlock()
	if len(names) == 0 {
		return nodes, nil
	}
	live := make([]*corev1.Node, len(names))
	errs := make([]error, len(names))
	workqueue.ParallelizeUntil(ctx, c.parallelism, len(names), func(i int) {
		n, err := cl.client.CoreV1().Nodes().Get(ctx, names[i], metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			errs[i] = fmt.Errorf("reading Node %s: %w", names[i], err)
		case n.Labels[sim.LabelNodePool] == np.Name:
			live[i] = n
		}
	})
	if err := errors.Join(errs...); err != nil {
		c.mu.Lock()
		c.memoryOf(np.UID).unsure = append(c.memoryOf(np.UID).unsure, names...)
		c.mu.Unlock()
		return nil, err
	}
	byName := make(map[string]int, len(nodes))
	for i, n := range nodes {
		byName[n.Name] = i
	}
	gone := map[string]types.UID{}
	for i, name := range names {
		j, cached := byName[name]
		switch {
		case live[i] == nil && cached:
			gone[name] = nodes[j].UID
		case live[i] != nil && cached:
			kept, _ := compared(live[i])
			nodes[j] = kept.(*corev1.Node)
		case live[i] != nil:
			kept, _ := compared(live[i])
			nodes = append(nodes, kept.(*corev1.Node))
			byName[name] = len(nodes) - 1
		}
	}
	if len(gone) > 0 {
		c.remember(np.UID, &tally{gone: gone})
		nodes = slices.DeleteFunc(nodes, func(n *corev1.Node) bool {
			uid, ok := gone[n.Name]
			return ok && uid == n.UID
		})
	}
	return nodes, nil
}
