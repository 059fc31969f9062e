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
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	simfake "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned/fake"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions"
)

const testNamespace = "ns"

// fixture is a Controller over fakes: the host's nodepools (with informers,
// so that pool events reach the Controller as in a server), a simulator's
// Nodes, and a Node cache the test fills, as the informer would, late.
type fixture struct {
	c      *Controller
	sims   *simfake.Clientset
	kube   *kubefake.Clientset
	cl     *cluster
	events *record.FakeRecorder
}

func newFixture(t *testing.T, np *v1alpha1.NodePool, nodes ...runtime.Object) *fixture {
	t.Helper()
	sims := simfake.NewClientset(np)
	// The tracker keeps no resourceVersions of its own: this reactor does
	// what the apiserver does with the one a patch carries.
	sims.PrependReactor("patch", "nodepools", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.PatchAction)
		var body struct {
			Metadata struct{ ResourceVersion string } `json:"metadata"`
		}
		if err := json.Unmarshal(p.GetPatch(), &body); err != nil {
			return true, nil, err
		}
		cur, err := sims.Tracker().Get(a.GetResource(), a.GetNamespace(), p.GetName())
		if err != nil {
			return true, nil, err
		}
		if rv := body.Metadata.ResourceVersion; rv != "" && rv != cur.(*v1alpha1.NodePool).ResourceVersion {
			return true, nil, apierrors.NewConflict(a.GetResource().GroupResource(), p.GetName(), nil)
		}
		return false, nil, nil
	})
	factory := siminformers.NewSharedInformerFactory(sims, 0)
	events := record.NewFakeRecorder(100)
	c, err := New(sims, factory.Sim().V1alpha1().NodePools(), factory.Sim().V1alpha1().Simulators(), nil, events)
	if err != nil {
		t.Fatal(err)
	}
	c.parallelism = 4
	factory.Start(t.Context().Done())
	t.Cleanup(factory.Shutdown)
	factory.WaitForCacheSync(t.Context().Done())

	kube := kubefake.NewClientset(nodes...)
	inf := cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Node{}, 0, cache.Indexers{byPool: poolOf})
	f := &fixture{c: c, sims: sims, kube: kube, cl: &cluster{client: kube, informer: inf}, events: events}
	for _, n := range nodes {
		f.cache(t, n.(*corev1.Node))
	}
	return f
}

// cache puts n in the Node cache, as the informer would once it sees n.
func (f *fixture) cache(t *testing.T, n *corev1.Node) {
	t.Helper()
	if n.Labels[sim.LabelNodePool] == "" {
		return // outside the informer's selector
	}
	kept, _ := compared(n)
	if err := f.cl.informer.GetIndexer().Update(kept); err != nil {
		t.Fatal(err)
	}
}

// catchUp makes the Node cache show what the simulator holds, save skip.
func (f *fixture) catchUp(t *testing.T, skip ...string) {
	t.Helper()
	for _, o := range f.cl.informer.GetIndexer().List() {
		if err := f.cl.informer.GetIndexer().Delete(o); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range f.nodes(t) {
		if !slices.Contains(skip, n.Name) {
			f.cache(t, &n)
		}
	}
}

// nodes lists the Nodes in the simulator.
func (f *fixture) nodes(t *testing.T) []corev1.Node {
	t.Helper()
	list, err := f.kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func (f *fixture) names(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, n := range f.nodes(t) {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}

// pool returns the pool as the host holds it.
func (f *fixture) pool(t *testing.T, name string) *v1alpha1.NodePool {
	t.Helper()
	np, err := f.sims.SimV1alpha1().NodePools(testNamespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return np
}

// setPool writes np as a user would, with the next resourceVersion, and
// waits until the Controller's lister shows it.
func (f *fixture) setPool(t *testing.T, np *v1alpha1.NodePool) *v1alpha1.NodePool {
	t.Helper()
	np = np.DeepCopy()
	np.ResourceVersion = next(f.pool(t, np.Name).ResourceVersion)
	if _, err := f.sims.SimV1alpha1().NodePools(testNamespace).Update(context.Background(), np, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		got, err := f.c.pools.NodePools(testNamespace).Get(np.Name)
		return err == nil && got.ResourceVersion == np.ResourceVersion, nil
	}); err != nil {
		t.Fatalf("the lister never showed resourceVersion %s: %v", np.ResourceVersion, err)
	}
	return np
}

func next(rv string) string { return rv + "1" }

func (f *fixture) converge(t *testing.T, np *v1alpha1.NodePool) time.Duration {
	t.Helper()
	tmpl, err := f.c.template(np)
	if err != nil {
		t.Fatal(err)
	}
	after, err := f.c.converge(t.Context(), np, f.cl, tmpl)
	if err != nil {
		t.Fatalf("converge: %v", err)
	}
	return after
}

func newPool(name string, replicas int32) *v1alpha1.NodePool {
	return &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, UID: types.UID(name + "-uid"), Generation: 1, ResourceVersion: "1"},
		Spec:       v1alpha1.NodePoolSpec{SimulatorName: "sim", Replicas: ptr.To(replicas)},
	}
}

// poolNode is the Node the pool makes at index i, as it is once created.
func poolNode(t *testing.T, np *v1alpha1.NodePool, i int) *corev1.Node {
	t.Helper()
	b, err := NewNodeBuilder(np.Name, &np.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	n, err := b.Render(i)
	if err != nil {
		t.Fatal(err)
	}
	bornReady(n, metav1.Now())
	n.UID = types.UID(n.Name + "-uid")
	n.ResourceVersion = "1"
	return n
}

func readyCondition(t *testing.T, np *v1alpha1.NodePool) *metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(np.Status.Conditions, v1alpha1.NodePoolConditionReady)
	if c == nil {
		t.Fatalf("no Ready condition in %+v", np.Status)
	}
	return c
}

// TestBatchStopsWhenTheSpecChanges scales a pool from 1,000 to 10 while its
// batch of creates runs: the batch stops (it does not make the 1,000), and
// the next sync leaves exactly the 10 Nodes, also removing those whose
// create the stop cut short but which happened.
func TestBatchStopsWhenTheSpecChanges(t *testing.T) {
	np := newPool("p", 1000)
	f := newFixture(t, np)
	const scaleAt = 20
	var (
		mu      sync.Mutex
		creates int
		cut     []string // created, but the reconciler was not told
	)
	f.kube.PrependReactor("create", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		creates++
		n := creates
		mu.Unlock()
		if n == scaleAt {
			scaled := np.DeepCopy()
			scaled.Generation, scaled.Spec.Replicas = 2, ptr.To[int32](10)
			f.setPool(t, scaled)
			if !f.waitForStop(t, "p") {
				t.Error("the batch did not stop when the pool's generation changed")
			}
			return false, nil, nil
		}
		if n > scaleAt {
			// In flight when the batch stopped: the write happens, but
			// the client hears only that its context ended.
			obj := a.(k8stesting.CreateAction).GetObject()
			if err := f.kube.Tracker().Create(a.GetResource(), obj, ""); err != nil {
				return true, nil, err
			}
			mu.Lock()
			cut = append(cut, obj.(*corev1.Node).Name)
			mu.Unlock()
			return true, nil, context.Canceled
		}
		return false, nil, nil
	})

	f.converge(t, np)
	if creates >= 1000 {
		t.Fatalf("the batch made all %d Nodes after the pool was scaled to 10", creates)
	}
	t.Logf("%d creates, %d of them cut short", creates, len(cut))
	if len(f.c.batches) != 0 {
		t.Errorf("batches still registered: %v", f.c.batches)
	}

	// The cache catches up, but not with the creates it was not told of.
	f.catchUp(t, cut...)
	f.converge(t, f.pool(t, "p"))
	want := make([]string, 10)
	for i := range want {
		want[i] = sim.NodeName("p", i)
	}
	slices.Sort(want)
	if d := cmp.Diff(want, f.names(t)); d != "" {
		t.Errorf("Nodes in the simulator (-want +got):\n%s", d)
	}
	f.catchUp(t)
	f.converge(t, f.pool(t, "p"))
	got := f.pool(t, "p")
	if c := readyCondition(t, got); c.Status != metav1.ConditionTrue || c.ObservedGeneration != 2 || got.Status.ObservedGeneration != 2 {
		t.Errorf("status %+v, want Ready for generation 2", got.Status)
	}
}

// waitForStop waits until the running batch of pool has stopped.
func (f *fixture) waitForStop(t *testing.T, pool string) bool {
	f.c.mu.Lock()
	b := f.c.batches[testNamespace+"/"+pool]
	f.c.mu.Unlock()
	if b == nil {
		return false
	}
	select {
	case <-b.stopped:
		return true
	case <-time.After(wait.ForeverTestTimeout):
		return false
	}
}

// TestForeignNodeWithAPoolName: a Node the pool did not make holds one of
// its names. The pool makes the others, leaves that one alone, does not
// count it, and says so in its Ready condition and in one Event.
func TestForeignNodeWithAPoolName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels map[string]string
	}{
		{name: "no pool label", labels: map[string]string{"owner": "someone"}},
		{name: "another pool's label", labels: map[string]string{sim.LabelNodePool: "other"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := newPool("p", 3)
			foreign := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "p-1", UID: "foreign", Labels: tc.labels}}
			f := newFixture(t, np, foreign)
			if after := f.converge(t, np); after != takenRecheck {
				t.Errorf("converge asks to look again after %v, want %v", after, takenRecheck)
			}
			if d := cmp.Diff([]string{"p-0", "p-1", "p-2"}, f.names(t)); d != "" {
				t.Errorf("Nodes (-want +got):\n%s", d)
			}
			for _, a := range f.kube.Actions() {
				if n, ok := a.(interface{ GetName() string }); ok && n.GetName() == "p-1" && a.GetVerb() != "get" {
					t.Errorf("the pool wrote the foreign Node: %s", a.GetVerb())
				}
			}
			got, err := f.kube.CoreV1().Nodes().Get(t.Context(), "p-1", metav1.GetOptions{})
			if err != nil || got.UID != "foreign" || !cmp.Equal(got.Labels, tc.labels) {
				t.Errorf("the foreign Node changed: %+v, %v", got, err)
			}

			st := f.pool(t, "p")
			c := readyCondition(t, st)
			if c.Status != metav1.ConditionFalse || c.Reason != ReasonNodeNameTaken || !strings.Contains(c.Message, "p-1") {
				t.Errorf("Ready condition %+v, want False, %s, naming p-1", c, ReasonNodeNameTaken)
			}
			if st.Status.Replicas != 2 {
				t.Errorf("status.replicas %d, want 2: the foreign Node is not the pool's", st.Status.Replicas)
			}

			// Seen again: no second Event.
			f.catchUp(t)
			f.converge(t, f.pool(t, "p"))
			close(f.events.Events)
			var events []string
			for e := range f.events.Events {
				events = append(events, e)
			}
			if len(events) != 1 || !strings.Contains(events[0], ReasonNodeNameTaken) || !strings.Contains(events[0], "p-1") {
				t.Errorf("events %q, want one %s naming p-1", events, ReasonNodeNameTaken)
			}
		})
	}
}

// TestTakenMessageIsBounded: however many names are taken, a few are named.
func TestTakenMessageIsBounded(t *testing.T) {
	var names []string
	for i := range 5000 {
		names = append(names, sim.NodeName("p", 4999-i))
	}
	msg := takenMessage("p", names)
	if !strings.Contains(msg, "p-0, p-1, p-2, p-3, p-4 and 4995 more") {
		t.Errorf("message %q", msg)
	}
	if len(msg) > 512 {
		t.Errorf("message of %d bytes", len(msg))
	}
}

// TestNotReadyWhileTheCacheShowsDeletedNodes scales a pool down and up again
// while the Node cache still shows the Nodes the scale-down deleted: the pool
// makes them anew and is not Ready until its cache shows them.
func TestNotReadyWhileTheCacheShowsDeletedNodes(t *testing.T) {
	np := newPool("p", 5)
	var nodes []runtime.Object
	for i := range 5 {
		nodes = append(nodes, poolNode(t, np, i))
	}
	f := newFixture(t, np, nodes...)
	f.converge(t, np)
	if c := readyCondition(t, f.pool(t, "p")); c.Status != metav1.ConditionTrue {
		t.Fatalf("Ready %+v, want True", c)
	}

	down := f.pool(t, "p")
	down.Generation, down.Spec.Replicas = 2, ptr.To[int32](3)
	down = f.setPool(t, down)
	f.converge(t, down)
	if d := cmp.Diff([]string{"p-0", "p-1", "p-2"}, f.names(t)); d != "" {
		t.Fatalf("Nodes after the scale-down (-want +got):\n%s", d)
	}

	// The cache has not seen the deletions yet.
	up := f.pool(t, "p")
	up.Generation, up.Spec.Replicas = 3, ptr.To[int32](5)
	up = f.setPool(t, up)
	f.converge(t, up)
	if d := cmp.Diff([]string{"p-0", "p-1", "p-2", "p-3", "p-4"}, f.names(t)); d != "" {
		t.Errorf("Nodes after the scale-up (-want +got):\n%s", d)
	}
	got := f.pool(t, "p")
	if c := readyCondition(t, got); c.Status == metav1.ConditionTrue {
		t.Errorf("Ready %+v before the cache showed p-3 and p-4", c)
	}
	f.catchUp(t)
	f.converge(t, f.pool(t, "p"))
	got = f.pool(t, "p")
	if c := readyCondition(t, got); c.Status != metav1.ConditionTrue || c.ObservedGeneration != 3 {
		t.Errorf("Ready %+v, want True for generation 3", c)
	}
}

// TestStatusIsWrittenForItsOwnGeneration: a status computed from one
// version of a pool is not written once the pool has changed.
func TestStatusIsWrittenForItsOwnGeneration(t *testing.T) {
	np := newPool("p", 1)
	f := newFixture(t, np, poolNode(t, np, 0))
	scaled := np.DeepCopy()
	scaled.Generation, scaled.Spec.Replicas = 2, ptr.To[int32](2)
	f.setPool(t, scaled)

	// A sync that read the pool before the scale: its pool is Ready.
	w := &statusWriter{c: f.c, np: np}
	if err := w.write(t.Context(), observed{replicas: 1, ready: 1, done: true}); err != nil {
		t.Fatal(err)
	}
	if !w.stale {
		t.Error("the writer did not see that the pool changed")
	}
	got := f.pool(t, "p")
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.NodePoolConditionReady); c != nil {
		t.Errorf("generation %d has condition %+v, written for generation 1", got.Generation, c)
	}
}

func TestPoolStatus(t *testing.T) {
	np := newPool("p", 3)
	np.Generation = 4
	np.Status = v1alpha1.NodePoolStatus{ObservedGeneration: 3, Replicas: 3, ReadyReplicas: 3, Conditions: []metav1.Condition{
		{Type: v1alpha1.NodePoolConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 3, Reason: "NodesReady"},
	}}
	for _, tc := range []struct {
		name   string
		o      observed
		status metav1.ConditionStatus
		reason string
	}{
		{name: "all made and Ready", o: observed{replicas: 3, ready: 3, done: true}, status: metav1.ConditionTrue, reason: "NodesReady"},
		{name: "batch running", o: observed{replicas: 3, ready: 3}, status: metav1.ConditionFalse, reason: "Scaling"},
		{name: "not all Ready", o: observed{replicas: 3, ready: 2, done: true}, status: metav1.ConditionFalse, reason: "Scaling"},
		{name: "too many", o: observed{replicas: 4, ready: 3, done: true}, status: metav1.ConditionFalse, reason: "Scaling"},
		{name: "names taken", o: observed{replicas: 2, ready: 2, done: true, reason: ReasonNodeNameTaken, message: "p-1"}, status: metav1.ConditionFalse, reason: ReasonNodeNameTaken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := poolStatus(np, tc.o)
			c := meta.FindStatusCondition(st.Conditions, v1alpha1.NodePoolConditionReady)
			if c.Status != tc.status || c.Reason != tc.reason {
				t.Errorf("Ready %s %s, want %s %s", c.Status, c.Reason, tc.status, tc.reason)
			}
			// kubectl wait reads the condition's observedGeneration.
			if c.ObservedGeneration != 4 || st.ObservedGeneration != 4 {
				t.Errorf("observedGeneration %d (condition %d), want 4", st.ObservedGeneration, c.ObservedGeneration)
			}
		})
	}
}

// TestRemoveNodesWaitsForNodesTheCacheMissed deletes a pool whose cache
// does not show yet a Node made just before: the pool keeps its finalizer
// until that Node is gone too.
func TestRemoveNodesWaitsForNodesTheCacheMissed(t *testing.T) {
	np := newPool("p", 2)
	np.Finalizers = []string{sim.FinalizerCleanup}
	np.DeletionTimestamp = ptr.To(metav1.Now())
	f := newFixture(t, np, poolNode(t, np, 0), poolNode(t, np, 1))
	f.catchUp(t, "p-1")
	if after, err := f.c.removeNodes(t.Context(), np, f.cl); err != nil || after == 0 {
		t.Errorf("removeNodes = %v, %v; want to look again", after, err)
	}
	if got := f.pool(t, "p"); !slices.Contains(got.Finalizers, sim.FinalizerCleanup) {
		t.Fatalf("the finalizer went with p-1 still in the simulator: %v", f.names(t))
	}
	f.catchUp(t)
	if after, err := f.c.removeNodes(t.Context(), f.pool(t, "p"), f.cl); err != nil || after != 0 {
		t.Errorf("removeNodes = %v, %v; want done", after, err)
	}
	if names := f.names(t); len(names) != 0 {
		t.Errorf("Nodes left: %v", names)
	}
	if got := f.pool(t, "p"); slices.Contains(got.Finalizers, sim.FinalizerCleanup) {
		t.Errorf("the finalizer stayed: %v", got.Finalizers)
	}
}

// uidImmutable makes the fake do what the apiserver does with a patch whose
// metadata.uid differs from the Node's: refuse it, 422 at metadata.uid.
func uidImmutable(f *fixture) {
	f.kube.PrependReactor("patch", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.PatchAction)
		var body struct {
			Metadata struct{ UID types.UID } `json:"metadata"`
		}
		if err := json.Unmarshal(p.GetPatch(), &body); err != nil {
			return true, nil, err
		}
		cur, err := f.kube.Tracker().Get(a.GetResource(), "", p.GetName())
		if err != nil {
			return true, nil, err
		}
		if uid := body.Metadata.UID; uid != "" && uid != cur.(*corev1.Node).UID {
			return true, nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Node").GroupKind(), p.GetName(), field.ErrorList{
				field.Invalid(field.NewPath("metadata", "uid"), uid, "field is immutable"),
			})
		}
		return false, nil, nil
	})
	f.kube.PrependReactor("delete", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		d := a.(k8stesting.DeleteAction)
		cur, err := f.kube.Tracker().Get(a.GetResource(), "", d.GetName())
		if err != nil {
			return false, nil, nil
		}
		if pre := d.GetDeleteOptions().Preconditions; pre != nil && pre.UID != nil && *pre.UID != cur.(*corev1.Node).UID {
			return true, nil, apierrors.NewConflict(a.GetResource().GroupResource(), d.GetName(), errors.New("Precondition failed: UID"))
		}
		return false, nil, nil
	})
}

// TestNodeReplacedUnderTheCache: the cache still shows the pool's Node p-1,
// drifted from the template, but inside another Node has taken its name.
// The pool's patches name the UID they were computed for, so the foreign
// Node is not overwritten (neither its labels nor its status), and once the
// cache catches up the name is reported as taken.
func TestNodeReplacedUnderTheCache(t *testing.T) {
	for _, tc := range []struct {
		name  string
		drift func(*corev1.Node)
	}{
		{name: "labels", drift: func(n *corev1.Node) { delete(n.Labels, corev1.LabelHostname) }},
		{name: "status", drift: func(n *corev1.Node) { n.Status.Capacity[corev1.ResourceCPU] = resource.MustParse("2") }},
		// An immutable field: the pool deletes the Node to make it anew.
		{name: "podCIDR", drift: func(n *corev1.Node) { n.Spec.PodCIDR = "10.0.0.0/24" }},
		{name: "both", drift: func(n *corev1.Node) {
			delete(n.Labels, corev1.LabelHostname)
			n.Status.Capacity[corev1.ResourceCPU] = resource.MustParse("2")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := newPool("p", 2)
			np.Spec.Template.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}
			foreign := &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "p-1", UID: "foreign", ResourceVersion: "5", Labels: map[string]string{"owner": "someone"}},
				Status:     corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			}
			f := newFixture(t, np, poolNode(t, np, 0), foreign)
			uidImmutable(f)
			stale := poolNode(t, np, 1)
			tc.drift(stale)
			f.cache(t, stale)

			f.converge(t, np)
			got, err := f.kube.CoreV1().Nodes().Get(t.Context(), "p-1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(foreign, got); d != "" {
				t.Errorf("the foreign Node was written (-was +now):\n%s", d)
			}
			if c := readyCondition(t, f.pool(t, "p")); c.Status == metav1.ConditionTrue {
				t.Errorf("Ready %+v with p-1 not the pool's", c)
			}

			f.catchUp(t)
			if after := f.converge(t, f.pool(t, "p")); after != takenRecheck {
				t.Errorf("converge asks to look again after %v, want %v", after, takenRecheck)
			}
			st := f.pool(t, "p")
			if c := readyCondition(t, st); c.Status != metav1.ConditionFalse || c.Reason != ReasonNodeNameTaken || !strings.Contains(c.Message, "p-1") ||
				c.ObservedGeneration != st.Generation || st.Status.Replicas != 1 {
				t.Errorf("Ready %+v, replicas %d; want False, %s naming p-1, for generation %d, 1 Node", c, st.Status.Replicas, ReasonNodeNameTaken, st.Generation)
			}
		})
	}
}

// TestPatchesNameTheNode: every patch of a Node names the UID it was
// computed for.
func TestPatchesNameTheNode(t *testing.T) {
	for _, tc := range []struct {
		name, patch, want string
	}{
		{name: "metadata", patch: `{"metadata":{"labels":{"a":"b"}}}`, want: `{"metadata":{"labels":{"a":"b"},"uid":"u"}}`},
		{name: "spec only", patch: `{"spec":{"unschedulable":true}}`, want: `{"metadata":{"uid":"u"},"spec":{"unschedulable":true}}`},
		{name: "status", patch: `{"status":{"capacity":{"cpu":"4"}}}`, want: `{"metadata":{"uid":"u"},"status":{"capacity":{"cpu":"4"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withUID([]byte(tc.patch), "u")
			if err != nil || string(got) != tc.want {
				t.Errorf("withUID = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

// TestRemoveNodesReportsDeleting: deleting a Ready pool makes a new
// generation (the apiserver bumps it with deletionTimestamp); the pool says
// at once, for that generation, that it is not Ready but going.
func TestRemoveNodesReportsDeleting(t *testing.T) {
	np := newPool("p", 2)
	np.Finalizers = []string{sim.FinalizerCleanup}
	np.Status = v1alpha1.NodePoolStatus{Replicas: 2, ReadyReplicas: 2, ObservedGeneration: 1, Conditions: []metav1.Condition{{
		Type: v1alpha1.NodePoolConditionReady, Status: metav1.ConditionTrue, Reason: "NodesReady", ObservedGeneration: 1,
	}}}
	np.Generation, np.DeletionTimestamp = 2, ptr.To(metav1.Now())
	f := newFixture(t, np, poolNode(t, np, 0), poolNode(t, np, 1))
	var ready []metav1.Condition
	f.sims.PrependReactor("patch", "nodepools", func(a k8stesting.Action) (bool, runtime.Object, error) {
		var body struct {
			Status v1alpha1.NodePoolStatus `json:"status"`
		}
		if err := json.Unmarshal(a.(k8stesting.PatchAction).GetPatch(), &body); err == nil {
			if c := meta.FindStatusCondition(body.Status.Conditions, v1alpha1.NodePoolConditionReady); c != nil {
				ready = append(ready, *c)
			}
		}
		return false, nil, nil
	})
	if after, err := f.c.removeNodes(t.Context(), np, f.cl); err != nil || after != 0 {
		t.Fatalf("removeNodes = %v, %v; want done", after, err)
	}
	if len(ready) != 1 || ready[0].Status != metav1.ConditionFalse || ready[0].Reason != ReasonDeleting || ready[0].ObservedGeneration != 2 ||
		!strings.Contains(ready[0].Message, "removing its 2 Nodes") {
		t.Errorf("Ready conditions written %+v, want one False, %s, for generation 2", ready, ReasonDeleting)
	}
	got := f.pool(t, "p")
	if slices.Contains(got.Finalizers, sim.FinalizerCleanup) || len(f.names(t)) != 0 {
		t.Errorf("finalizers %v, Nodes %v: want both gone", got.Finalizers, f.names(t))
	}
}

// TestBatchStopsOnlyWhenThePoolChanges changes a pool while its batch of 200
// creates runs: a new generation or the pool's going stops the batch
// between its writes; a change that leaves the spec as it was does not.
func TestBatchStopsOnlyWhenThePoolChanges(t *testing.T) {
	const replicas, changeAt = 200, 20
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, f *fixture, np *v1alpha1.NodePool)
		stops  bool
	}{
		{name: "scale", stops: true, change: func(t *testing.T, f *fixture, np *v1alpha1.NodePool) {
			np.Generation, np.Spec.Replicas = 2, ptr.To[int32](10)
			f.setPool(t, np)
		}},
		{name: "template change", stops: true, change: func(t *testing.T, f *fixture, np *v1alpha1.NodePool) {
			np.Generation, np.Spec.Template.Metadata.Labels = 2, map[string]string{"zone": "a"}
			f.setPool(t, np)
		}},
		{name: "deletion under way", stops: true, change: func(t *testing.T, f *fixture, np *v1alpha1.NodePool) {
			np.Generation, np.DeletionTimestamp = 2, ptr.To(metav1.Now())
			f.setPool(t, np)
		}},
		{name: "deleted at once", stops: true, change: func(t *testing.T, f *fixture, np *v1alpha1.NodePool) {
			// Its finalizer removed by hand: the only event is the deletion,
			// of the pool as it last was.
			if err := f.sims.SimV1alpha1().NodePools(testNamespace).Delete(context.Background(), np.Name, metav1.DeleteOptions{}); err != nil {
				t.Error(err)
			}
			if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
				_, err := f.c.pools.NodePools(testNamespace).Get(np.Name)
				return apierrors.IsNotFound(err), nil
			}); err != nil {
				t.Errorf("the lister still shows the pool: %v", err)
			}
		}},
		{name: "labels only", stops: false, change: func(t *testing.T, f *fixture, np *v1alpha1.NodePool) {
			np.Labels = map[string]string{"team": "a"}
			f.setPool(t, np)
		}},
		{name: "status only", stops: false, change: func(t *testing.T, f *fixture, np *v1alpha1.NodePool) {
			np.Status.Replicas = changeAt
			f.setPool(t, np)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := newPool("p", replicas)
			f := newFixture(t, np)
			var (
				mu      sync.Mutex
				creates int
				stopped bool
			)
			f.kube.PrependReactor("create", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
				mu.Lock()
				creates++
				n := creates
				mu.Unlock()
				if n == changeAt {
					tc.change(t, f, f.pool(t, "p"))
					stopped = f.stoppedWithin(t, "p", map[bool]time.Duration{true: wait.ForeverTestTimeout, false: 300 * time.Millisecond}[tc.stops])
				}
				return false, nil, nil
			})
			f.converge(t, np)
			if stopped != tc.stops {
				t.Errorf("the batch stopped: %v, want %v", stopped, tc.stops)
			}
			switch made := len(f.nodes(t)); {
			case tc.stops && made >= replicas:
				t.Errorf("all %d Nodes made after the batch was to stop", made)
			case !tc.stops && made != replicas:
				t.Errorf("%d Nodes made, want all %d", made, replicas)
			}
			t.Logf("%d creates", creates)
		})
	}
}

// stoppedWithin says whether the running batch of pool stops within d.
func (f *fixture) stoppedWithin(t *testing.T, pool string, d time.Duration) bool {
	t.Helper()
	f.c.mu.Lock()
	b := f.c.batches[testNamespace+"/"+pool]
	f.c.mu.Unlock()
	if b == nil {
		t.Error("no batch is running")
		return false
	}
	select {
	case <-b.stopped:
		return true
	case <-time.After(d):
		return false
	}
}
