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

package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/nodepool"
	simv1alpha1 "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned/typed/sim/v1alpha1"
)

// TestNodePoolSpecChanges changes pools while they work, in one simulator:
// a scale-down stops a running batch, kubectl wait after a scale waits for
// the new generation, and a Node the pool did not make under one of its
// names is left alone and reported.
func TestNodePoolSpecChanges(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "npchange")
	runningSimulator(t, ns, "sim")
	inner := innerClient(t, ns, "sim")
	pools := simClient(t).SimV1alpha1().NodePools(ns)
	readyOnlyForItsGeneration(t, pools)
	scale := func(t *testing.T, pool string, replicas int) {
		t.Helper()
		if out, err := kubectl(t, host.KubeconfigPath, "scale", "-n", ns, "nodepool/"+pool, fmt.Sprintf("--replicas=%d", replicas)); err != nil {
			t.Fatalf("kubectl scale: %v\n%s", err, out)
		}
	}
	create := func(t *testing.T, pool string, replicas int32) {
		t.Helper()
		np := &v1alpha1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Name: pool},
			Spec:       v1alpha1.NodePoolSpec{SimulatorName: "sim", Replicas: ptr.To(replicas)},
		}
		if _, err := pools.Create(t.Context(), np, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("a scale-down stops the running batch", func(t *testing.T) {
		const from, to = 2000, 10
		added := watchAdded(t, inner, "big")
		create(t, "big", from)
		// Some made, most to come: the batch runs.
		added.waitFor(t, 100)
		start := time.Now()
		scale(t, "big", to)
		if n := added.count(); n >= from {
			t.Fatalf("%d Nodes made when the scale returned: the batch was over, nothing was tested", n)
		} else {
			t.Logf("%d of %d Nodes made when the scale to %d returned", n, from, to)
		}
		waitForPool(t, inner, ns, "big")
		t.Logf("Ready with exactly %d Nodes %v after the scale (%d Nodes made in all)", to, time.Since(start).Round(10*time.Millisecond), added.count())
		// Without the stop, the batch makes every Node before the next
		// sync deletes 1,990 of them.
		if n := added.count(); n >= from {
			t.Errorf("all %d Nodes were made after the pool was scaled to %d: the batch did not stop", n, to)
		}
	})

	t.Run("deleting a pool stops its running batch", func(t *testing.T) {
		const replicas = 2000
		added := watchAdded(t, inner, "doomed")
		create(t, "doomed", replicas)
		added.waitFor(t, 100)
		start := time.Now()
		if err := pools.Delete(t.Context(), "doomed", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := added.count(); n >= replicas {
			t.Fatalf("%d Nodes made when the pool was deleted: the batch was over, nothing was tested", n)
		}
		eventually(t, "the pool and its Nodes to be gone", func(ctx context.Context) (bool, error) {
			_, err := pools.Get(ctx, "doomed", metav1.GetOptions{})
			return apierrors.IsNotFound(err) && len(poolNodes(ctx, t, inner, "doomed")) == 0, nil
		})
		t.Logf("the pool and its Nodes gone %v after the delete (%d Nodes made in all)", time.Since(start).Round(10*time.Millisecond), added.count())
		if n := added.count(); n >= replicas {
			t.Errorf("all %d Nodes were made after the pool was deleted: the batch did not stop", n)
		}
	})

	t.Run("a pool deleted at once stops its running batch", func(t *testing.T) {
		// Its finalizer removed by hand: the reconciler hears only of the
		// deletion, and its Nodes stay (nothing is left to remove them).
		// Counted by listing, as a watch of 2,000 quick creates may be cut.
		const replicas = 2000
		made := func(ctx context.Context) int { return len(poolNodes(ctx, t, inner, "dropped")) }
		create(t, "dropped", replicas)
		eventually(t, "100 Nodes made", func(ctx context.Context) (bool, error) { return made(ctx) >= 100, nil })
		if _, err := pools.Patch(t.Context(), "dropped", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := pools.Delete(t.Context(), "dropped", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := made(t.Context()); n >= replicas {
			t.Fatalf("%d Nodes made when the pool was deleted: the batch was over, nothing was tested", n)
		}
		// The batch goes on making Nodes unless it stopped: wait for a
		// second without a new one.
		last, since := -1, time.Now()
		eventually(t, "Nodes to stop coming", func(ctx context.Context) (bool, error) {
			if n := made(ctx); n != last {
				last, since = n, time.Now()
			}
			return time.Since(since) > time.Second, nil
		})
		t.Logf("%d of %d Nodes made in all", last, replicas)
		if last >= replicas {
			t.Errorf("all %d Nodes were made after the pool was deleted: the batch did not stop", last)
		}
		if err := inner.CoreV1().Nodes().DeleteCollection(t.Context(), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: sim.LabelNodePool + "=dropped"}); err != nil {
			t.Error(err)
		}
	})

	t.Run("kubectl wait after a scale waits for the new generation", func(t *testing.T) {
		create(t, "waited", 500)
		waitForPool(t, inner, ns, "waited")
		// Down and at once up again: the second scale meets the first one's
		// batch and a Node cache that still shows the Nodes it deleted.
		for _, replicas := range [][]int{{1000}, {10, 700}} {
			for _, r := range replicas {
				scale(t, "waited", r)
			}
			want := replicas[len(replicas)-1]
			if out, err := kubectl(t, host.KubeconfigPath, "wait", "-n", ns, "--for=condition=Ready", "nodepool/waited", "--timeout=180s"); err != nil {
				t.Fatalf("kubectl wait: %v\n%s", err, out)
			}
			// Right when kubectl wait returns, the pool is what its spec says.
			np, err := pools.Get(t.Context(), "waited", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if np.Status.ObservedGeneration != np.Generation || int(*np.Spec.Replicas) != want {
				t.Errorf("after kubectl wait: generation %d, observedGeneration %d, replicas %d, want %d",
					np.Generation, np.Status.ObservedGeneration, *np.Spec.Replicas, want)
			}
			nodes := poolNodes(t.Context(), t, inner, "waited")
			var notReady []string
			for _, n := range nodes {
				if !nodeReady(&n) {
					notReady = append(notReady, n.Name)
				}
			}
			var missing []string
			for _, name := range nodeNames("waited", want) {
				if _, ok := nodes[name]; !ok {
					missing = append(missing, name)
				}
			}
			if len(nodes) != want || len(missing) > 0 || len(notReady) > 0 {
				t.Errorf("when kubectl wait returned after the scale to %d: %d Nodes, missing %v, not Ready %v", want, len(nodes), head(missing), head(notReady))
			}
		}
	})

	t.Run("a foreign Node with a pool Node's name", func(t *testing.T) {
		ctx := t.Context()
		create(t, "pool", 2)
		waitForPool(t, inner, ns, "pool")
		foreign := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pool-3", Labels: map[string]string{"owner": "someone"}}}
		foreign, err := inner.CoreV1().Nodes().Create(ctx, foreign, metav1.CreateOptions{FieldManager: "someone"})
		if err != nil {
			t.Fatal(err)
		}
		// Another pool's mark is not this pool's either.
		elsewhere := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pool-5", Labels: map[string]string{sim.LabelNodePool: "elsewhere"}}}
		elsewhere, err = inner.CoreV1().Nodes().Create(ctx, elsewhere, metav1.CreateOptions{FieldManager: "someone"})
		if err != nil {
			t.Fatal(err)
		}
		scale(t, "pool", 6)

		var cond *metav1.Condition
		eventually(t, "the pool to report pool-3 as taken", func(ctx context.Context) (bool, error) {
			np, err := pools.Get(ctx, "pool", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			cond = meta.FindStatusCondition(np.Status.Conditions, v1alpha1.NodePoolConditionReady)
			return np.Status.ObservedGeneration == np.Generation && cond != nil && cond.ObservedGeneration == np.Generation &&
				cond.Reason == nodepool.ReasonNodeNameTaken, nil
		})
		if cond.Status != metav1.ConditionFalse || !strings.Contains(cond.Message, "pool-3, pool-5") {
			t.Errorf("Ready condition %+v, want False naming pool-3 and pool-5", cond)
		}
		t.Logf("condition: %s: %s", cond.Reason, cond.Message)
		eventually(t, "the pool's other 4 Nodes", func(ctx context.Context) (bool, error) {
			nodes := poolNodes(ctx, t, inner, "pool")
			for _, name := range []string{"pool-0", "pool-1", "pool-2", "pool-4"} {
				if n, ok := nodes[name]; !ok || !nodeReady(&n) {
					return false, nil
				}
			}
			return len(nodes) == 4, nil
		})
		np, err := pools.Get(ctx, "pool", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if np.Status.Replicas != 4 {
			t.Errorf("status.replicas %d, want 4: pool-3 is not the pool's", np.Status.Replicas)
		}
		for _, was := range []*corev1.Node{foreign, elsewhere} {
			got, err := inner.CoreV1().Nodes().Get(ctx, was.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.UID != was.UID || got.ResourceVersion != was.ResourceVersion || !cmp.Equal(got.Labels, was.Labels) {
				t.Errorf("%s was written: labels %v, resourceVersion %s (was %s)", was.Name, got.Labels, got.ResourceVersion, was.ResourceVersion)
			}
		}
		eventually(t, "an Event naming pool-3", func(ctx context.Context) (bool, error) {
			events, err := host.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=NodePool,involvedObject.name=pool"})
			if err != nil {
				return false, err
			}
			for _, e := range events.Items {
				if e.Reason == nodepool.ReasonNodeNameTaken && e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, "pool-3") {
					return true, nil
				}
			}
			return false, nil
		})

		// Once the names are free, the pool makes its own Nodes there.
		for _, name := range []string{"pool-3", "pool-5"} {
			if err := inner.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		waitForPool(t, inner, ns, "pool")
	})
}

// readyOnlyForItsGeneration watches the namespace's pools until the test
// ends, and fails it if any version of one says Ready=True for a generation
// other than its own: right after a scale, too, before the reconciler acts.
func readyOnlyForItsGeneration(t *testing.T, pools simv1alpha1.NodePoolInterface) {
	t.Helper()
	w, err := pools.Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		versions int
		scaled   int // versions whose generation was not observed yet
		bad      []string
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		for e := range w.ResultChan() {
			np, ok := e.Object.(*v1alpha1.NodePool)
			if !ok {
				continue
			}
			versions++
			if np.Status.ObservedGeneration < np.Generation {
				scaled++
			}
			c := meta.FindStatusCondition(np.Status.Conditions, v1alpha1.NodePoolConditionReady)
			// Setting deletionTimestamp bumps the generation past any
			// strategy; the reconciler then says Deleting. Only spec
			// changes are held to this.
			if np.DeletionTimestamp == nil && c != nil && c.Status == metav1.ConditionTrue &&
				(c.ObservedGeneration != np.Generation || np.Status.ObservedGeneration != np.Generation) {
				bad = append(bad, fmt.Sprintf("%s at generation %d: Ready=True for generation %d (status.observedGeneration %d)",
					np.Name, np.Generation, c.ObservedGeneration, np.Status.ObservedGeneration))
			}
		}
	}()
	t.Cleanup(func() {
		w.Stop()
		<-done
		t.Logf("%d versions of the pools watched, %d of them of a generation not observed yet", versions, scaled)
		if len(bad) > 0 {
			t.Errorf("%d versions said Ready for another generation: %v", len(bad), head(bad))
		}
	})
}

// addedNodes counts the distinct Nodes of a pool a watch saw made.
type addedNodes struct {
	mu    sync.Mutex
	names map[string]bool
	more  chan struct{} // signalled at each new name
}

// watchAdded watches a pool's Nodes inside from now on.
func watchAdded(t *testing.T, inner kubernetes.Interface, pool string) *addedNodes {
	t.Helper()
	w, err := inner.CoreV1().Nodes().Watch(t.Context(), metav1.ListOptions{LabelSelector: sim.LabelNodePool + "=" + pool})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	a := &addedNodes{names: map[string]bool{}, more: make(chan struct{}, 1)}
	go func() {
		for e := range w.ResultChan() {
			if e.Type != watch.Added {
				continue
			}
			if n, ok := e.Object.(*corev1.Node); ok {
				a.mu.Lock()
				a.names[n.Name] = true
				a.mu.Unlock()
				select {
				case a.more <- struct{}{}:
				default:
				}
			}
		}
	}()
	return a
}

func (a *addedNodes) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.names)
}

// waitFor waits until the watch saw n Nodes made.
func (a *addedNodes) waitFor(t *testing.T, n int) {
	t.Helper()
	for a.count() < n {
		select {
		case <-a.more:
		case <-time.After(3 * time.Minute):
			t.Fatalf("%d Nodes made, waiting for %d", a.count(), n)
		}
	}
}
