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
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestRecordTampering changes the records of a running simulator on an
// external etcd, and of its NodePool, as an administrator past the records
// policy's break-glass would (the integration host does not apply the
// policy). Nothing is lost silently, and the names answer GET and CREATE
// alike:
//   - a relabelled record is still served, its labels come back, and the
//     host's garbage collector leaves the simulator's objects alone;
//   - a damaged record answers an InternalError naming it and the
//     break-glass, a create collides, the objects are kept until the data
//     is restored;
//   - a deleted record comes back as a deleted object, so that its
//     finalizer runs: a pool's Nodes are removed, a simulator's etcd keys
//     purged, and its other pools go with it.
//
// Each is told by an Event on the object.
func TestRecordTampering(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "tamper")
	etcd, err := host.StartEtcd(ctx, "tamper-etcd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(etcd.Stop)
	sims := simClient(t).SimV1alpha1().Simulators(ns)
	pools := simClient(t).SimV1alpha1().NodePools(ns)
	records := host.Client.CoreV1().ConfigMaps(framework.SimNamespace)

	s := withFreePorts(t, newSimulator("victim"))
	s.Spec.EtcdURL = etcd.URL
	victim, err := sims.Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := waitForPod(t, ns, "victim", 1)
	proc, err := host.RunSimulatorAsProcess(ctx, ns, "victim")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	waitForPhase(t, simClient(t), ns, "victim", v1alpha1.SimulatorAvailable)
	inner := innerClient(t, ns, "victim")
	for _, name := range []string{"pool", "other"} {
		np := &v1alpha1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.NodePoolSpec{SimulatorName: "victim", Replicas: ptr.To(int32(3))}}
		if _, err := pools.Create(ctx, np, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitForPool(t, inner, ns, name)
	}
	prefix := backing.EtcdPrefix(victim)
	if n := countKeys(t, etcd.URL, nil, prefix); n == 0 {
		t.Fatalf("no keys under %s in the external etcd", prefix)
	}
	simRecord := recordOf(t, ns, "victim")
	poolRecord := recordOfResource(t, "nodepools.sim.x-k8s.io", ns, "pool")

	// untouched checks that the host's garbage collector has had its go at
	// the simulator's objects and left them: a dependent of an owner that
	// never existed, made now, is deleted by it after what it saw before.
	untouched := func(t *testing.T) {
		t.Helper()
		canary := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "canary-", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Simulator", Name: "ghost", UID: uuid.NewUUID(),
		}}}}
		canary, err := host.Client.CoreV1().ConfigMaps(ns).Create(ctx, canary, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// A bound, not a figure: the collector pauses while it resyncs its
		// monitors (every 30 s).
		start := time.Now()
		err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := host.Client.CoreV1().ConfigMaps(ns).Get(ctx, canary.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Fatalf("waiting for the garbage collector to delete a dependent of a missing owner: %v", err)
		}
		t.Logf("the garbage collector deleted the canary in %v", time.Since(start).Round(100*time.Millisecond))
		if got := hostObjectCounts(ctx, t, ns, "victim"); !framework.SameCounts(got, framework.ConvergedBackingObjects) {
			t.Errorf("host objects of the simulator: %v, want %v", got, framework.ConvergedBackingObjects)
		}
		current, err := host.Client.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil || current.UID != pod.UID || current.DeletionTimestamp != nil {
			t.Errorf("the simulator's Pod: %v; want %s kept", err, pod.UID)
		}
		for _, name := range []string{"pool", "other"} {
			if np, err := pools.Get(ctx, name, metav1.GetOptions{}); err == nil && np.DeletionTimestamp != nil {
				t.Errorf("NodePool %s is being deleted", name)
			}
		}
		if n := countKeys(t, etcd.URL, nil, prefix); n == 0 {
			t.Errorf("the simulator's keys under %s are gone", prefix)
		}
	}
	// collides checks that the name is taken: a create says AlreadyExists.
	collides := func(t *testing.T, create func() error) {
		t.Helper()
		if err := create(); !apierrors.IsAlreadyExists(err) {
			t.Errorf("create of a name whose record exists: %v, want AlreadyExists", err)
		}
	}
	createSim := func() error {
		_, err := sims.Create(ctx, newSimulator("victim"), metav1.CreateOptions{})
		return err
	}
	createPool := func() error {
		_, err := pools.Create(ctx, &v1alpha1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "pool"}, Spec: v1alpha1.NodePoolSpec{SimulatorName: "victim"}}, metav1.CreateOptions{})
		return err
	}
	relabel := func(t *testing.T, record string) {
		t.Helper()
		patch := `[{"op":"remove","path":"/metadata/labels/records.sim.x-k8s.io~1resource"},{"op":"remove","path":"/metadata/labels/records.sim.x-k8s.io~1name"}]`
		if _, err := records.Patch(ctx, record, types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	relabelled := func(t *testing.T, record string) {
		t.Helper()
		eventually(t, "the labels of "+record+" to be put back", func(ctx context.Context) (bool, error) {
			cm, err := records.Get(ctx, record, metav1.GetOptions{})
			return err == nil && cm.Labels[hoststore.LabelResource] != "" && cm.Labels[hoststore.LabelName] != "", err
		})
	}

	// watchFrom opens a watch, as the host's garbage collector has one, of
	// the namespace's objects from now. The collector deletes an owner's
	// dependents on a DELETED alone, without asking again.
	watchFrom := func(t *testing.T, watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error), rv string) watch.Interface {
		t.Helper()
		w, err := watchFn(ctx, metav1.ListOptions{ResourceVersion: rv})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		return w
	}
	// notToldDeleted fails if w says DELETED of uid before it says the
	// object is being deleted (deletionTimestamp set): a tampered record's
	// object is still there, or comes back as deleted.
	notToldDeleted := func(t *testing.T, w watch.Interface, uid types.UID) {
		t.Helper()
		quiet := time.NewTimer(3 * time.Second)
		defer quiet.Stop()
		for {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok || ev.Type == watch.Error {
					return // the client relists (a damaged record)
				}
				m, err := meta.Accessor(ev.Object)
				if err != nil || m.GetUID() != uid {
					continue
				}
				t.Logf("the watch says %s of %s (deletionTimestamp %v)", ev.Type, m.GetName(), m.GetDeletionTimestamp())
				switch {
				case ev.Type == watch.Deleted:
					t.Errorf("a watcher was told DELETED of %s while its record was kept", m.GetName())
					return
				case m.GetDeletionTimestamp() != nil:
					return
				}
			case <-quiet.C:
				return
			}
		}
	}

	t.Run("relabelled simulator", func(t *testing.T) {
		w := watchFrom(t, sims.Watch, recordRV(t, simRecord.Name))
		relabel(t, simRecord.Name)
		if got, err := sims.Get(ctx, "victim", metav1.GetOptions{}); err != nil || got.UID != victim.UID {
			t.Errorf("get of a simulator whose record lost its labels: %v; want it served", err)
		}
		collides(t, createSim)
		relabelled(t, simRecord.Name)
		notToldDeleted(t, w, victim.UID)
		waitForEvent(t, ns, "Simulator", "victim", hoststore.ReasonRecordRelabelled)
		untouched(t)
	})

	t.Run("relabelled pool", func(t *testing.T) {
		before, err := pools.Get(ctx, "pool", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w := watchFrom(t, pools.Watch, before.ResourceVersion)
		relabel(t, poolRecord.Name)
		if _, err := pools.Get(ctx, "pool", metav1.GetOptions{}); err != nil {
			t.Errorf("get of a pool whose record lost its labels: %v; want it served", err)
		}
		collides(t, createPool)
		relabelled(t, poolRecord.Name)
		notToldDeleted(t, w, before.UID)
		waitForEvent(t, ns, "NodePool", "pool", hoststore.ReasonRecordRelabelled)
		if n := len(poolNodes(ctx, t, inner, "pool")); n != 3 {
			t.Errorf("%d Nodes of the relabelled pool, want 3", n)
		}
	})

	t.Run("damaged simulator", func(t *testing.T) {
		cm, err := records.Get(ctx, simRecord.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		good := cm.Data["object"]
		cm.Data["object"] = "{"
		if cm, err = records.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err = sims.Get(ctx, "victim", metav1.GetOptions{})
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "cannot be decoded") ||
			!strings.Contains(err.Error(), simRecord.Name) || !strings.Contains(err.Error(), "sim-apiserver-records") {
			t.Errorf("get of a simulator whose record is damaged: %v; want an InternalError naming the record and the break-glass", err)
		}
		collides(t, createSim)
		waitForEvent(t, ns, "Simulator", "victim", hoststore.ReasonRecordDamaged)
		untouched(t)
		// The data back: the simulator is as it was.
		cm.Data["object"] = good
		if _, err := records.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, err := sims.Get(ctx, "victim", metav1.GetOptions{}); err != nil || got.UID != victim.UID {
			t.Fatalf("get of the repaired simulator: %v", err)
		}
		waitForPhase(t, simClient(t), ns, "victim", v1alpha1.SimulatorAvailable)
	})

	t.Run("deleted pool", func(t *testing.T) {
		before, err := pools.Get(ctx, "pool", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w := watchFrom(t, pools.Watch, before.ResourceVersion)
		if err := records.Delete(ctx, poolRecord.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		notToldDeleted(t, w, before.UID)
		waitForEvent(t, ns, "NodePool", "pool", hoststore.ReasonRecordLost)
		// Back as deleted, never alive; its finalizer removes its Nodes.
		eventually(t, "the pool to go with its Nodes", func(ctx context.Context) (bool, error) {
			np, err := pools.Get(ctx, "pool", metav1.GetOptions{})
			switch {
			case err == nil && np.DeletionTimestamp == nil:
				return false, fmt.Errorf("the pool is back alive (uid %s)", np.UID)
			case err == nil:
				return false, nil
			case !apierrors.IsNotFound(err):
				return false, err
			}
			return len(poolNodes(ctx, t, inner, "pool")) == 0, nil
		})
		if n := len(poolNodes(ctx, t, inner, "other")); n != 3 {
			t.Errorf("%d Nodes of the other pool, want 3", n)
		}
	})

	t.Run("deleted simulator", func(t *testing.T) {
		w := watchFrom(t, sims.Watch, recordRV(t, simRecord.Name))
		if err := records.Delete(ctx, simRecord.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		notToldDeleted(t, w, victim.UID)
		waitForEvent(t, ns, "Simulator", "victim", hoststore.ReasonRecordLost)
		// Back as deleted: the same simulator, Terminating, its name taken.
		got, err := sims.Get(ctx, "victim", metav1.GetOptions{})
		if err == nil && (got.UID != victim.UID || got.DeletionTimestamp == nil) {
			t.Errorf("after its record's deletion, the simulator is uid %s, deletionTimestamp %v; want %s being deleted", got.UID, got.DeletionTimestamp, victim.UID)
		}
		if err == nil {
			collides(t, createSim)
		}
		// Its finalizer deletes the Pod; the test plays kubelet.
		eventually(t, "the Pod to be deleted", func(ctx context.Context) (bool, error) {
			return !slices.ContainsFunc(simulatorPods(ctx, t, ns, "victim"), func(p corev1.Pod) bool { return p.DeletionTimestamp == nil }), nil
		})
		proc.Stop()
		confirmPodDeletions(ctx, t, ns)
		eventually(t, fmt.Sprintf("the keys under %s to be purged", prefix), func(context.Context) (bool, error) {
			return countKeys(t, etcd.URL, nil, prefix) == 0, nil
		})
		eventually(t, "the simulator and its other pool to be gone", func(ctx context.Context) (bool, error) {
			confirmPodDeletions(ctx, t, ns)
			_, simErr := sims.Get(ctx, "victim", metav1.GetOptions{})
			_, poolErr := pools.Get(ctx, "other", metav1.GetOptions{})
			return apierrors.IsNotFound(simErr) && apierrors.IsNotFound(poolErr), nil
		})
		if got := hostObjectCounts(ctx, t, ns, "victim"); len(got) != 0 {
			t.Errorf("host objects left: %v", got)
		}
		// The name is free again.
		if err := createSim(); err != nil {
			t.Errorf("create after the simulator went: %v", err)
		}
	})
}

// recordRV is the resourceVersion of a record now: a watch from it sees
// what comes next.
func recordRV(t testing.TB, name string) string {
	t.Helper()
	cm, err := hostCluster(t).Client.CoreV1().ConfigMaps(framework.SimNamespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.ResourceVersion
}

// waitForEvent waits for an Event with reason on object kind ns/name.
func waitForEvent(t testing.TB, ns, kind, name, reason string) {
	t.Helper()
	eventually(t, fmt.Sprintf("a %s Event on %s %s/%s", reason, kind, ns, name), func(ctx context.Context) (bool, error) {
		events, err := hostCluster(t).Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.kind=" + kind + ",involvedObject.name=" + name + ",reason=" + reason,
		})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			t.Logf("Event %s on %s %s: %s", e.Reason, kind, name, e.Message)
		}
		return len(events.Items) > 0, nil
	})
}
