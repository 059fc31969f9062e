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

package e2e

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// loadTimeout bounds how long the simulators that fit take to be Available
// together, and the others to be found unschedulable, on a busy machine
// (several inner control planes start at once on its two cores).
const loadTimeout = 10 * time.Minute

// TestFiftySimulators creates 50 simulators at once on a node with room
// for only a few of them, on purpose: each simulator's Pod requests a share
// of the node's free memory such that exactly `fit` fit (50 real simulator
// Pods would not fit in this machine's memory either). Those reach
// Available; every other one is Pending with its Available condition
// saying Unschedulable: Insufficient memory, from its Pod's scheduling
// failure. Nothing is lost: 50 records, each with exactly one of each
// backing object. Deleting one Available simulator makes room for a Pending
// one, which becomes Available with no change of its own; deleting them all
// leaves nothing behind.
func TestFiftySimulators(t *testing.T) {
	const total, fit = 50, 2
	c := hostCluster(t)
	ctx := t.Context()
	ns := newNamespace(t, "load-")
	client := simClient(t).SimV1alpha1().Simulators(ns)

	share := memoryShare(t, fit)
	// The etcd container's share is set too, so that the Pod's total is the
	// share whatever requests the generated Pod has by default.
	etcdShare := resource.MustParse("64Mi")
	simShare := share.DeepCopy()
	simShare.Sub(etcdShare)
	template := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: contract.SimulatorContainer, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: simShare}}},
		{Name: contract.EtcdContainer, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: etcdShare}}},
	}}}
	t.Logf("each simulator Pod requests %s of memory: %d fit on node %s", share.String(), fit, c.NodeName)

	names := make([]string, total)
	for i := range names {
		names[i] = fmt.Sprintf("load-%02d", i)
	}
	start := time.Now()
	errs := make([]error, total)
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			_, errs[i] = client.Create(ctx, &v1alpha1.Simulator{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec:       v1alpha1.SimulatorSpec{PodTemplate: template},
			}, metav1.CreateOptions{})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("creating %d simulators at once: %v", total, err)
	}
	t.Logf("%d simulators created at once in %v", total, time.Since(start).Round(time.Millisecond))

	settled := func(want int) func(ctx context.Context) (bool, string) {
		var state string
		return func(ctx context.Context) (bool, string) {
			list, err := client.List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, state + "; then " + err.Error()
			}
			phases := map[string]int{}
			others := map[string]string{}
			for _, s := range list.Items {
				key := phaseAndReason(s)
				phases[key]++
				if key != availableKey && key != unschedulableKey {
					others[s.Name] = s.Status.Message
				}
			}
			state = fmt.Sprintf("%v; the others: %v", phases, others)
			return phases[availableKey] == fit && phases[unschedulableKey] == want-fit, state
		}
	}
	poll(t, fmt.Sprintf("%d simulators Available and %d Unschedulable", fit, total-fit), loadTimeout, settled(total))
	t.Logf("%d Available and %d Pending (Unschedulable) %v after the creates began", fit, total-fit, time.Since(start).Round(time.Millisecond))

	listed := listSimulators(ctx, t, ns)
	var got []string
	uids := map[string]bool{}
	var available []string
	for _, s := range listed {
		got = append(got, s.Name)
		uids[string(s.UID)] = true
		cond := availableCondition(s)
		switch {
		case s.Status.Phase == v1alpha1.SimulatorAvailable:
			available = append(available, s.Name)
		case s.Status.Phase != v1alpha1.SimulatorPending || cond == nil || cond.Reason != corev1.PodReasonUnschedulable ||
			!strings.Contains(cond.Message, "Insufficient memory") || cond.Message != s.Status.Message:
			t.Errorf("simulator %s: phase %s, condition %+v; want Pending, Unschedulable, Insufficient memory", s.Name, s.Status.Phase, cond)
		}
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(names, ",") || len(uids) != total {
		t.Errorf("listed %d simulators (%d UIDs): %v; want exactly %v", len(got), len(uids), got, names)
	}
	if n := recordCount(t, ns); n != total {
		t.Errorf("%d records of simulators in %s, want %d", n, ns, total)
	}
	for name, counts := range hostObjectsBySimulator(t, ns) {
		if !framework.SameCounts(counts, framework.ConvergedBackingObjects) {
			t.Errorf("simulator %s has host objects %v, want %v", name, counts, framework.ConvergedBackingObjects)
		}
	}
	for _, s := range listed {
		if s.Status.Phase != v1alpha1.SimulatorPending {
			continue
		}
		if cond := availableCondition(s); cond != nil {
			t.Logf("a Pending simulator: %s: %s", cond.Reason, cond.Message)
		}
		break
	}
	logSimAPIServerRSS(t, fmt.Sprintf("with %d simulators", total))

	// Room made: a Pending simulator takes the freed place by itself.
	freed := time.Now()
	if err := client.Delete(ctx, available[0], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, fmt.Sprintf("a Pending simulator to take the place of %s", available[0]), loadTimeout, settled(total-1))
	t.Logf("deleted %s: a Pending simulator was Available %v later", available[0], time.Since(freed).Round(time.Millisecond))

	// Everything goes, and takes everything of its own along.
	cleanup := time.Now()
	if err := client.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "every simulator and its host objects to be gone", loadTimeout, func(ctx context.Context) (bool, string) {
		list, err := client.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		sims := len(list.Items)
		left := hostObjectsBySimulator(t, ns)
		records := recordCount(t, ns)
		return sims == 0 && len(left) == 0 && records == 0, fmt.Sprintf("%d simulators, %d records, host objects of %d simulators", sims, records, len(left))
	})
	t.Logf("deleted %d simulators: everything gone %v later", total-1, time.Since(cleanup).Round(time.Millisecond))
}

const (
	availableKey     = "Available"
	unschedulableKey = "Pending/Unschedulable"
)

func phaseAndReason(s v1alpha1.Simulator) string {
	if cond := availableCondition(s); cond != nil && cond.Reason != string(s.Status.Phase) {
		return string(s.Status.Phase) + "/" + cond.Reason
	}
	return string(s.Status.Phase)
}

func availableCondition(s v1alpha1.Simulator) *metav1.Condition {
	for i := range s.Status.Conditions {
		if s.Status.Conditions[i].Type == v1alpha1.SimulatorConditionAvailable {
			return &s.Status.Conditions[i]
		}
	}
	return nil
}

func listSimulators(ctx context.Context, t testing.TB, ns string) []v1alpha1.Simulator {
	t.Helper()
	list, err := simClient(t).SimV1alpha1().Simulators(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing simulators: %v", err)
	}
	return list.Items
}

// memoryShare returns the memory request that lets exactly n Pods of it fit
// on the node beside what its Pods request already.
func memoryShare(t testing.TB, n int64) resource.Quantity {
	t.Helper()
	c := hostCluster(t)
	node, err := c.Client.CoreV1().Nodes().Get(t.Context(), c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	free := node.Status.Allocatable.Memory().Value()
	pods, err := c.Client.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{FieldSelector: "spec.nodeName=" + c.NodeName})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, ctr := range p.Spec.Containers {
			free -= ctr.Resources.Requests.Memory().Value()
		}
	}
	// n shares fit in free; n+1 do not. Whole MiB, rounded down.
	return *resource.NewQuantity(free/n>>20<<20, resource.BinarySI)
}

// hostObjectsBySimulator counts the host objects of each kind labelled with
// a simulator in the namespace, by simulator.
func hostObjectsBySimulator(t testing.TB, ns string) map[string]map[string]int {
	t.Helper()
	counts, err := framework.BackingObjects(t.Context(), hostCluster(t).Client, ns, sim.LabelSimulator)
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// recordCount counts the records of simulators of a namespace: the
// ConfigMaps sim-apiserver keeps in its own namespace.
func recordCount(t testing.TB, ns string) int {
	t.Helper()
	n, err := framework.SimulatorRecords(t.Context(), hostCluster(t).Client, ns)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// logSimAPIServerRSS logs the resident memory of the cluster's sim-apiserver.
func logSimAPIServerRSS(t testing.TB, when string) {
	t.Helper()
	pid, err := hostCluster(t).ProcessPID("sim-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	rss, err := framework.ProcessRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sim-apiserver RSS %s: %d MiB", when, rss>>20)
}
