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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// nodeCount counts the Nodes inside a simulator with a one-item list: the
// list says how many remain, so that polling does not fetch thousands.
func nodeCount(ctx context.Context, inner kubernetes.Interface) (int, error) {
	list, err := inner.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return 0, err
	}
	return len(list.Items) + int(ptr.Deref(list.RemainingItemCount, 0)), nil
}

// TestFaultSimAPIServerKilledDuringNodePoolScaleUp kills sim-apiserver
// (SIGKILL) while a NodePool makes 5,000 Nodes, and restarts it: the pool
// converges to exactly its 5,000 Nodes, <pool>-0 … <pool>-4999, each once
// and Ready, and nothing else inside.
func TestFaultSimAPIServerKilledDuringNodePoolScaleUp(t *testing.T) {
	const replicas = 5000
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "poolcrash")
	runningSimulator(t, ns, "sim")
	inner := innerClient(t, ns, "sim")
	np := &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "big"},
		Spec:       v1alpha1.NodePoolSpec{SimulatorName: "sim", Replicas: ptr.To(int32(replicas))},
	}
	if _, err := simClient(t).SimV1alpha1().NodePools(ns).Create(ctx, np, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Kill once a fifth is made: writes are in flight, most are to come.
	var atKill int
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		n, err := nodeCount(ctx, inner)
		atKill = n
		return err == nil && n >= replicas/5, nil
	}); err != nil {
		t.Fatalf("waiting for the scale-up to begin: %v (%d Nodes)", err, atKill)
	}
	if err := host.KillSimAPIServer(); err != nil {
		t.Fatal(err)
	}
	if n, err := nodeCount(ctx, inner); err != nil || n >= replicas {
		t.Fatalf("%d Nodes (%v) when sim-apiserver was killed: the scale-up was over, nothing was tested", n, err)
	} else {
		atKill = n
	}
	t.Logf("%d of %d Nodes when sim-apiserver was killed", atKill, replicas)
	if err := host.RestartSimAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()

	// Converged: the pool says Ready for its generation with all its Nodes,
	// and the simulator holds those and no other.
	var last string
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := simClient(t).SimV1alpha1().NodePools(ns).Get(ctx, "big", metav1.GetOptions{})
		if err != nil {
			// Right after a restart sim-apiserver may not yet trust the
			// host's front-proxy headers (403 as system:anonymous).
			last = err.Error()
			return false, nil
		}
		cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.NodePoolConditionReady)
		last = fmt.Sprintf("%+v", got.Status)
		return got.Status.ObservedGeneration == got.Generation && cond != nil && cond.Status == metav1.ConditionTrue &&
			got.Status.Replicas == replicas && got.Status.ReadyReplicas == replicas, nil
	}); err != nil {
		t.Fatalf("the pool did not converge after the restart: %v; last status %s", err, last)
	}
	t.Logf("converged %v after the restart", time.Since(restarted).Round(100*time.Millisecond))

	list, err := inner.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names, notReady, strays []string
	for _, n := range list.Items {
		names = append(names, n.Name)
		if n.Labels[sim.LabelNodePool] != "big" {
			strays = append(strays, n.Name)
		}
		if !nodeReady(&n) {
			notReady = append(notReady, n.Name)
		}
	}
	want := nodeNames("big", replicas)
	slices.Sort(want)
	slices.Sort(names)
	if len(names) != replicas || !slices.Equal(names, want) {
		extra, missing := difference(names, want), difference(want, names)
		t.Errorf("%d Nodes inside, want exactly %d: extra %v, missing %v", len(names), replicas, head(extra), head(missing))
	}
	if len(strays) > 0 || len(notReady) > 0 {
		t.Errorf("Nodes without the pool's label: %v; not Ready: %v", head(strays), head(notReady))
	}
}

// difference is what a holds that b does not (both sorted).
func difference(a, b []string) []string {
	var d []string
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); !found {
			d = append(d, s)
		}
	}
	return d
}

// head is the first few of a list, for messages.
func head(s []string) []string { return s[:min(len(s), 10)] }
