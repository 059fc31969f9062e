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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// Progress is written to the pool's status this often while a batch runs,
// so that `kubectl get np -w` shows it.
const progressInterval = time.Second

// op is one Node to look at: to create, to check against the template, or
// to delete.
type op struct {
	index  int
	node   *corev1.Node // nil: create
	delete bool
}

// takenRecheck is how often a pool some of whose Node names are held by
// Nodes it did not make looks again: no event of its own says when they go.
const takenRecheck = 15 * time.Second

// ReasonNodeNameTaken is the reason of the Ready condition (and of the
// Event) of a pool some of whose Node names are held by Nodes it did not
// make.
const ReasonNodeNameTaken = "NodeNameTaken"

// ReasonDeleting is the reason of the Ready condition of a pool being deleted.
const ReasonDeleting = "Deleting"

// maxNamed bounds the Node names a condition or Event lists.
const maxNamed = 5

// tally counts what a batch did.
type tally struct {
	// base is how many of the pool's Nodes existed when the batch started.
	base                     int32
	created, deleted, failed atomic.Int32
	// replaced counts the pool's Nodes found replaced by others under
	// their names since the cache showed them.
	replaced atomic.Int32
	mu       sync.Mutex
	errs     []error
	// gone holds, by name, the UIDs of the Nodes deleted.
	gone map[string]types.UID
	// unsure names the Nodes whose write a stopped batch cut short, or
	// that were found replaced.
	unsure []string
	// taken names the pool's Nodes held by Nodes it did not make.
	taken []string
}

// exist is how many of the pool's Nodes exist now, by the batch's own count.
func (t *tally) exist() int32 {
	return max(t.base+t.created.Load()-t.deleted.Load()-t.replaced.Load(), 0)
}

func (t *tally) fail(err error) {
	t.failed.Add(1)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.errs) < 3 {
		t.errs = append(t.errs, err)
	}
}

func (t *tally) goneNode(n *corev1.Node) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone == nil {
		t.gone = map[string]types.UID{}
	}
	t.gone[n.Name] = n.UID
}

func (t *tally) cutShort(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.unsure = append(t.unsure, name)
}

// lostNode records that the pool's Node n, as the cache shows it, was
// replaced by another Node under its name: n no longer counts, and the next
// sync reads whose the one holding the name is, never writing it meanwhile.
func (t *tally) lostNode(ctx context.Context, n *corev1.Node) {
	klog.FromContext(ctx).V(2).Info("Node replaced since the cache showed it; leaving it alone", "node", n.Name, "uid", n.UID)
	t.replaced.Add(1)
	t.goneNode(n)
	t.cutShort(n.Name)
}

func (t *tally) nameTaken(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.taken = append(t.taken, name)
}

// converge makes the simulator hold exactly the pool's Nodes: the missing
// ones are created, the extra ones (highest indices first) deleted, and
// those that differ from the template patched. The batch stops when the
// pool's spec changes; the next sync converges on the new one.
func (c *Controller) converge(ctx context.Context, np *v1alpha1.NodePool, cl *cluster, tmpl *compiled) (time.Duration, error) {
	st := &statusWriter{c: c, np: np}
	nodes, err := c.resolveUnsure(ctx, np, cl, c.nodesOf(np, cl))
	if err != nil {
		return 0, err
	}
	desired := int(*np.Spec.Replicas)
	present := make([]*corev1.Node, desired)
	var deletes, checks, creates []op
	for _, n := range nodes {
		i, ok := nodeIndex(np.Name, n.Name)
		switch {
		case !ok || i >= desired:
			deletes = append(deletes, op{index: i, node: n, delete: true})
		case n.DeletionTimestamp == nil:
			present[i] = n
			if rv, ok := tmpl.verified.Load(n.Name); !ok || rv != n.ResourceVersion {
				checks = append(checks, op{index: i, node: n})
			}
		}
	}
	for i, n := range present {
		if n == nil {
			creates = append(creates, op{index: i})
		}
	}
	slices.SortFunc(deletes, func(a, b op) int { return b.index - a.index })
	ops := slices.Concat(deletes, creates, checks)
	if len(ops) == 0 {
		c.reportTaken(np, "")
		return 0, st.write(ctx, c.observe(np, nodes, int32(len(nodes)), true))
	}
	logger := klog.FromContext(ctx)
	if len(deletes)+len(creates) > 0 {
		logger.V(2).Info("Converging", "nodes", len(nodes), "desired", desired, "create", len(creates), "delete", len(deletes), "check", len(checks))
	}
	// A new generation: say at once that the last one's Ready no longer
	// holds, rather than when the batch ends.
	if np.Status.ObservedGeneration != np.Generation {
		if err := st.write(ctx, c.observe(np, nodes, int32(len(nodes)), false)); err != nil {
			return 0, err
		}
		if st.stale {
			return 0, nil // the pool changed: its event brings it back
		}
	}

	bctx, done := c.startBatch(ctx, np)
	defer done()
	t := tally{base: int32(len(nodes))}
	stop := c.reportProgress(bctx, st, cl, &t, len(deletes)+len(creates))
	workqueue.ParallelizeUntil(bctx, c.parallelism, len(ops), func(p int) {
		if err := c.apply(bctx, np, cl, tmpl, ops[p], &t); err != nil {
			if bctx.Err() != nil {
				// Cut short: the write may or may not have happened.
				t.cutShort(opNodeName(np.Name, ops[p]))
				return
			}
			t.fail(err)
		}
	})
	stop()
	c.remember(np.UID, &t)
	if bctx.Err() != nil {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		logger.V(2).Info("Stopped the batch", "cause", context.Cause(bctx), "writes", len(ops),
			"created", t.created.Load(), "deleted", t.deleted.Load(), "unsure", len(t.unsure))
		return 0, nil // the pool's event brings it back, to its new spec
	}

	// Counts from the cache plus what it may not have seen yet; Node events
	// bring the pool back as Nodes turn Ready.
	o := c.observe(np, c.nodesOf(np, cl), t.exist(), true)
	if n := t.failed.Load(); n > 0 {
		err := fmt.Errorf("%d of %d Node writes failed: %w", n, len(ops), errors.Join(t.errs...))
		c.recorder.Eventf(np, corev1.EventTypeWarning, "NodeWritesFailed", "%v", err)
		o.done, o.reason, o.message = false, "NodeWritesFailed", err.Error()
		return 0, errors.Join(err, st.write(ctx, o))
	}
	if len(t.taken) > 0 {
		o.reason, o.message = ReasonNodeNameTaken, takenMessage(np.Name, t.taken)
		c.reportTaken(np, o.message)
		return takenRecheck, st.write(ctx, o)
	}
	c.reportTaken(np, "")
	return 0, st.write(ctx, o)
}

// opNodeName is the name of the Node an op writes.
func opNodeName(pool string, o op) string {
	if o.node != nil {
		return o.node.Name
	}
	return sim.NodeName(pool, o.index)
}

// apply does one op. A create that finds a Node of the pool (the cache was
// behind, or an earlier run made it before crashing) counts as done; one
// that finds a Node the pool did not make leaves it alone and reports it.
func (c *Controller) apply(ctx context.Context, np *v1alpha1.NodePool, cl *cluster, tmpl *compiled, o op, t *tally) error {
	nodes := cl.client.CoreV1().Nodes()
	if o.delete {
		uid := o.node.UID
		err := nodes.Delete(ctx, o.node.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err == nil || apierrors.IsNotFound(err) {
			t.deleted.Add(1)
			t.goneNode(o.node)
			return nil
		}
		if apierrors.IsConflict(err) {
			t.lostNode(ctx, o.node)
			return nil
		}
		return fmt.Errorf("deleting Node %s: %w", o.node.Name, err)
	}
	want, err := tmpl.node.Render(o.index)
	if err != nil {
		return fmt.Errorf("rendering Node %d: %w", o.index, err)
	}
	if o.node == nil {
		bornReady(want, metav1.Now())
		_, err := nodes.Create(ctx, want, metav1.CreateOptions{FieldManager: FieldManager})
		switch {
		case err == nil:
			t.created.Add(1)
			return nil
		case apierrors.IsAlreadyExists(err):
			ours, err := c.ours(ctx, cl, np.Name, want.Name, t)
			if ours {
				t.created.Add(1)
			}
			return err
		}
		return fmt.Errorf("creating Node %s: %w", want.Name, err)
	}
	ch := diff(o.node, want)
	if ch.none() {
		tmpl.verified.Store(o.node.Name, o.node.ResourceVersion)
		return nil
	}
	klog.FromContext(ctx).V(4).Info("Node differs from the template", "node", o.node.Name, "recreate", ch.recreate, "patch", string(ch.meta), "status", string(ch.status))
	if ch.recreate {
		// podCIDR and providerID cannot change on a Node.
		uid := o.node.UID
		err := nodes.Delete(ctx, o.node.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if apierrors.IsConflict(err) {
			t.lostNode(ctx, o.node)
			return nil
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting Node %s to make it anew: %w", o.node.Name, err)
		}
		t.goneNode(o.node)
		bornReady(want, metav1.Now())
		if _, err := nodes.Create(ctx, want, metav1.CreateOptions{FieldManager: FieldManager}); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("making Node %s anew: %w", want.Name, err)
			}
			_, err := c.ours(ctx, cl, np.Name, want.Name, t)
			return err
		}
		return nil
	}
	// The patches name the UID of the Node compared: the cache may still
	// show the pool's Node under a name another Node has taken since, which
	// the pool must not overwrite (the apiserver refuses a changed UID).
	for _, p := range []struct {
		patch       []byte
		subresource []string
		what        string
	}{{ch.meta, nil, "Node"}, {ch.status, []string{"status"}, "the status of Node"}} {
		if p.patch == nil {
			continue
		}
		patch, err := withUID(p.patch, o.node.UID)
		if err != nil {
			return fmt.Errorf("patching %s %s: %w", p.what, o.node.Name, err)
		}
		_, err = nodes.Patch(ctx, o.node.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager}, p.subresource...)
		switch {
		case replaced(err):
			t.lostNode(ctx, o.node)
			return nil
		case err != nil:
			return ignoreNotFound(fmt.Errorf("patching %s %s: %w", p.what, o.node.Name, err))
		}
	}
	return nil
}

// withUID adds metadata.uid to a JSON merge patch, making it apply to that
// Node alone.
func withUID(patch []byte, uid types.UID) ([]byte, error) {
	var p map[string]interface{}
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, fmt.Errorf("reading the patch: %w", err)
	}
	m, _ := p["metadata"].(map[string]interface{})
	if m == nil {
		m = map[string]interface{}{}
		p["metadata"] = m
	}
	m["uid"] = string(uid)
	return json.Marshal(p)
}

// replaced says whether a patch naming a Node's UID found another Node:
// the apiserver answers that metadata.uid is immutable.
func replaced(err error) bool {
	if !apierrors.IsInvalid(err) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	for _, c := range status.Status().Details.Causes {
		if c.Field == "metadata.uid" {
			return true
		}
	}
	return false
}

// ours reads the Node a create found in the way: one with the pool's label
// is the pool's (its cache had not seen it); any other was made by someone
// else, which the pool neither counts, overwrites nor deletes, and reports.
func (c *Controller) ours(ctx context.Context, cl *cluster, pool, name string, t *tally) (bool, error) {
	n, err := cl.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		// Gone since, most likely: the next sync makes it.
		return false, fmt.Errorf("reading Node %s, which exists: %w", name, err)
	}
	if n.Labels[sim.LabelNodePool] == pool {
		return true, nil
	}
	t.nameTaken(name)
	return false, nil
}

// takenMessage says which Node names of the pool others hold, naming a few:
// a condition's message stays short however many there are.
func takenMessage(pool string, names []string) string {
	names = slices.Clone(names)
	slices.SortFunc(names, func(a, b string) int {
		i, _ := nodeIndex(pool, a)
		j, _ := nodeIndex(pool, b)
		return cmp.Compare(i, j)
	})
	shown := strings.Join(names[:min(len(names), maxNamed)], ", ")
	if more := len(names) - maxNamed; more > 0 {
		shown += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Sprintf("Node names taken by Nodes the pool did not make (without the label %s=%s): %s; "+
		"the pool leaves them alone and makes its own once they are gone", sim.LabelNodePool, pool, shown)
}

// reportTaken posts an Event when the pool's taken Node names change (msg
// empty: none are).
func (c *Controller) reportTaken(np *v1alpha1.NodePool, msg string) {
	c.mu.Lock()
	m := c.memory[np.UID]
	if m == nil && msg == "" {
		c.mu.Unlock()
		return
	}
	m = c.memoryOf(np.UID)
	changed := m.taken != msg
	m.taken = msg
	c.mu.Unlock()
	if changed && msg != "" {
		c.recorder.Eventf(np, corev1.EventTypeWarning, ReasonNodeNameTaken, "%s", msg)
	}
}

// ignoreNotFound: a Node deleted meanwhile is the next sync's to make.
func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// reportProgress writes the pool's status every progressInterval while a
// batch of writes runs; the returned func stops it.
func (c *Controller) reportProgress(ctx context.Context, st *statusWriter, cl *cluster, t *tally, writes int) func() {
	if writes < 100 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ticker := time.NewTicker(progressInterval)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				if err := st.write(ctx, c.observe(st.np, c.nodesOf(st.np, cl), t.exist(), false)); err != nil && ctx.Err() == nil {
					klog.FromContext(ctx).V(2).Info("Writing progress", "err", err)
				}
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// observed is what a status write reports.
type observed struct {
	replicas, ready int32
	// reason is empty when the pool is done (Ready or converging on Node readiness).
	reason, message string
	// done: every write for this generation succeeded.
	done bool
}

// observe reports exist Nodes (counted by the caller, as the cache may lag
// behind a batch) and the Ready ones among nodes (the pool's, from nodesOf)
// that the pool wants.
func (c *Controller) observe(np *v1alpha1.NodePool, nodes []*corev1.Node, exist int32, done bool) observed {
	desired := int(*np.Spec.Replicas)
	var nReady int32
	for _, n := range nodes {
		if i, ok := nodeIndex(np.Name, n.Name); ok && i < desired && n.DeletionTimestamp == nil && ready(n) {
			nReady++
		}
	}
	return observed{replicas: exist, ready: min(nReady, exist), done: done}
}

// poolStatus is the status of np that o reports. It speaks for np's
// generation alone: Ready is True only when every write for that
// generation succeeded and all its Nodes exist and are Ready.
func poolStatus(np *v1alpha1.NodePool, o observed) *v1alpha1.NodePoolStatus {
	desired := *np.Spec.Replicas
	st := np.Status.DeepCopy()
	st.Replicas, st.ReadyReplicas = o.replicas, o.ready
	st.Selector = sim.NodePoolSelector(np.Name)
	// The reconciler has acted on this generation: the write is conditional
	// on it (statusWriter).
	st.ObservedGeneration = np.Generation
	cond := metav1.Condition{Type: v1alpha1.NodePoolConditionReady, ObservedGeneration: np.Generation}
	switch {
	case o.reason != "":
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, o.reason, o.message
	case o.done && o.replicas == desired && o.ready == desired:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, "NodesReady", fmt.Sprintf("%d/%d Nodes Ready", o.ready, desired)
	default:
		cond.Status, cond.Reason = metav1.ConditionFalse, v1alpha1.NodePoolReasonScaling
		cond.Message = fmt.Sprintf("%d/%d Nodes exist, %d Ready", o.replicas, desired, o.ready)
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	return st
}

// statusWriter writes the status of one version of a pool. Each write is
// conditional on that version (its resourceVersion), so that a status
// computed for one spec never lands on another: once the pool changes,
// nothing more is written until the next sync computes it anew.
type statusWriter struct {
	c  *Controller
	np *v1alpha1.NodePool
	// stale: the pool changed or went since np was read.
	stale bool
}

// writeStatus writes np's status once.
func (c *Controller) writeStatus(ctx context.Context, np *v1alpha1.NodePool, o observed) error {
	return (&statusWriter{c: c, np: np}).write(ctx, o)
}

// write patches the pool's status through nodepools/status when it changed.
func (w *statusWriter) write(ctx context.Context, o observed) error {
	if w.stale {
		return nil
	}
	st := poolStatus(w.np, o)
	if equality.Semantic.DeepEqual(st, &w.np.Status) {
		return nil
	}
	// Spelled out: the type's omitempty would drop the zeros (a pool scaled to 0).
	patch, err := json.Marshal(map[string]interface{}{
		"metadata": map[string]interface{}{"resourceVersion": w.np.ResourceVersion},
		"status": map[string]interface{}{
			"replicas": st.Replicas, "readyReplicas": st.ReadyReplicas, "observedGeneration": st.ObservedGeneration,
			"selector": st.Selector, "conditions": st.Conditions,
		},
	})
	if err != nil {
		return err
	}
	updated, err := w.c.sims.SimV1alpha1().NodePools(w.np.Namespace).Patch(ctx, w.np.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager}, "status")
	switch {
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		// Changed or gone since it was read: its event brings it back.
		w.stale = true
		return nil
	case err != nil:
		return fmt.Errorf("writing the status of nodepool %s/%s: %w", w.np.Namespace, w.np.Name, err)
	}
	w.np = updated
	return nil
}

// finalize removes the pool's Nodes from its simulator, then lets the pool go.
func (c *Controller) finalize(ctx context.Context, np *v1alpha1.NodePool, s *v1alpha1.Simulator) (time.Duration, error) {
	if !slices.Contains(np.Finalizers, sim.FinalizerCleanup) {
		return 0, nil
	}
	if reason, msg := unavailable(np, s); reason != "" {
		// Nodes go with their simulator; a pool that never had a Node has
		// none to remove. Otherwise wait: simulator events bring it back.
		if s != nil && s.DeletionTimestamp == nil && np.Status.Replicas > 0 {
			return 0, c.writeStatus(ctx, np, observed{replicas: np.Status.Replicas, ready: np.Status.ReadyReplicas,
				reason: ReasonDeleting, message: fmt.Sprintf("%d Nodes to remove; %s", np.Status.Replicas, msg)})
		}
		return 0, c.removeFinalizer(ctx, np)
	}
	cl, err := c.clusters.get(ctx, s)
	if err != nil {
		return 0, err
	}
	if !cl.informer.HasSynced() {
		return 100 * time.Millisecond, nil
	}
	return c.removeNodes(ctx, np, cl)
}

// removeNodes deletes the pool's Nodes, then lets the pool go once the
// simulator holds none.
func (c *Controller) removeNodes(ctx context.Context, np *v1alpha1.NodePool, cl *cluster) (time.Duration, error) {
	nodes, err := c.resolveUnsure(ctx, np, cl, c.nodesOf(np, cl))
	if err != nil {
		return 0, err
	}
	// Setting deletionTimestamp made a new generation (the apiserver bumps
	// it, past any strategy): say once, for it, that the pool is going,
	// rather than leave the last generation's Ready=True.
	st := &statusWriter{c: c, np: np}
	if cond := meta.FindStatusCondition(np.Status.Conditions, v1alpha1.NodePoolConditionReady); cond == nil ||
		cond.Reason != ReasonDeleting || cond.ObservedGeneration != np.Generation {
		o := c.observe(np, nodes, int32(len(nodes)), false)
		o.reason, o.message = ReasonDeleting, fmt.Sprintf("the pool is being deleted: removing its %d Nodes", len(nodes))
		if err := st.write(ctx, o); err != nil {
			return 0, err
		}
		if st.stale {
			return 0, nil // the pool changed: its event brings it back
		}
	}
	ops := make([]op, 0, len(nodes))
	for _, n := range nodes {
		i, _ := nodeIndex(np.Name, n.Name)
		ops = append(ops, op{index: i, node: n, delete: true})
	}
	var t tally
	workqueue.ParallelizeUntil(ctx, c.parallelism, len(ops), func(p int) {
		if err := c.apply(ctx, np, cl, nil, ops[p], &t); err != nil {
			t.fail(err)
		}
	})
	c.remember(np.UID, &t)
	if n := t.failed.Load(); n > 0 {
		err := fmt.Errorf("%d of %d Node deletions failed: %w", n, len(ops), errors.Join(t.errs...))
		c.recorder.Eventf(np, corev1.EventTypeWarning, "NodeWritesFailed", "%v", err)
		return 0, err
	}
	if len(ops) > 0 {
		klog.FromContext(ctx).V(2).Info("Removed the pool's Nodes", "nodes", len(ops))
	}
	// The cache may not show yet a Node made just before (by a batch the
	// deletion stopped): the pool stays until the simulator holds none.
	left, err := cl.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sim.NodePoolSelector(np.Name), Limit: 1})
	if err != nil {
		return 0, fmt.Errorf("listing the pool's Nodes left: %w", err)
	}
	if len(left.Items) > 0 && left.Items[0].DeletionTimestamp == nil {
		klog.FromContext(ctx).V(2).Info("Nodes of the pool left", "node", left.Items[0].Name)
		return nodeEventDelay, nil
	}
	return 0, c.removeFinalizer(ctx, st.np)
}

func (c *Controller) removeFinalizer(ctx context.Context, np *v1alpha1.NodePool) error {
	updated := np.DeepCopy()
	updated.Finalizers = slices.DeleteFunc(updated.Finalizers, func(f string) bool { return f == sim.FinalizerCleanup })
	_, err := c.sims.SimV1alpha1().NodePools(np.Namespace).Update(ctx, updated, metav1.UpdateOptions{FieldManager: FieldManager})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		// Gone, or changed: its event brings it back if there is more to do.
		err = nil
	}
	c.forget(np.UID)
	return err
}
