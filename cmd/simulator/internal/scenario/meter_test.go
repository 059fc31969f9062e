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

package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

func node(name string, ready bool, lbls map[string]string) *corev1.Node {
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls},
		Status: corev1.NodeStatus{Allocatable: alloc, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
}

// pod is a Pod requesting cpu and memory, on node ("": pending).
func pod(name, nodeName, cpu, mem string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func replica(name, nodeName string) *corev1.Pod {
	p := pod(name, nodeName, "1", "1Gi")
	p.GenerateName = "web-"
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs", Controller: ptr.To(true)}}
	return p
}

func withCondition(p *corev1.Pod, c corev1.PodCondition) *corev1.Pod {
	p = p.DeepCopy()
	p.Status.Conditions = append(p.Status.Conditions, c)
	return p
}

func unschedulable(p *corev1.Pod, at time.Time) *corev1.Pod {
	return withCondition(p, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
		Message: "0/3 nodes are available", LastTransitionTime: metav1.NewTime(at)})
}

// observe passes p through the informers' transform, as the meter sees it.
func observe(t *testing.T, m *meter, p *corev1.Pod) {
	t.Helper()
	slimmed, err := slim(p)
	if err != nil {
		t.Fatal(err)
	}
	m.observePod(slimmed.(*corev1.Pod))
}

// storeResult appends a scheduling result of default/name to dir, as the
// scheduler's store does: its filter table rejects nodes by plugin.
func storeResult(t *testing.T, dir, name string, filter schedulingresult.FilterTable) {
	t.Helper()
	d := &schedulingresult.Document{Namespace: "default", Name: name, UID: "u", Summary: []byte("{}"),
		Fields: []schedulingresult.Field{{Name: "filter-result", Kind: schedulingresult.KindFilter, PerNode: true}}, Filter: filter}
	data, err := d.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, fmt.Sprintf("%016d", 1))
	log, err := os.OpenFile(base+".log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = log.Close() }()
	st, err := log.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := log.Write(data); err != nil {
		t.Fatal(err)
	}
	idx, err := os.OpenFile(base+".idx", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = idx.Close() }()
	if _, err := fmt.Fprintf(idx, "default/%s %d %d\n", name, st.Size(), len(data)); err != nil {
		t.Fatal(err)
	}
}

// TestMeter measures a fixed set of Pods and Nodes.
func TestMeter(t *testing.T) {
	fc := testingclock.NewFakeClock(t0)
	results := t.TempDir()
	storeResult(t, results, "before-the-run", schedulingresult.FilterTable{})
	m := newMeter(fc, results)
	m.markResults(t.Context())
	pool := map[string]string{"pool": "a"}
	for _, n := range []*corev1.Node{node("n1", true, pool), node("n2", true, pool), node("n3", false, nil)} {
		m.observeNode(n)
	}

	// Bound before the run: the initial state, not scheduled by it.
	old := pod("old", "n2", "500m", "1Gi")
	observe(t, m, old)
	done := pod("done", "n1", "3", "1Gi")
	done.Status.Phase = corev1.PodSucceeded
	observe(t, m, done)
	// Two replicas, pending then bound after 2 s and 4 s.
	observe(t, m, replica("web-1", ""))
	observe(t, m, replica("web-2", ""))
	// A victim: bound after 1 s, then preempted.
	victim := pod("victim", "", "1", "1Gi")
	observe(t, m, victim)
	fc.Step(time.Second)
	victim.Spec.NodeName = "n2"
	observe(t, m, victim)
	fc.Step(time.Second)
	observe(t, m, replica("web-1", "n1"))
	victim = withCondition(victim, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler})
	victim.DeletionTimestamp = ptr.To(metav1.NewTime(fc.Now()))
	observe(t, m, victim)
	m.deletePod(victim)
	// Found no node twice (the second time after a change), the same
	// failure seen again in between.
	big := pod("big", "", "16", "1Gi")
	observe(t, m, unschedulable(big, t0))
	observe(t, m, unschedulable(big, t0))
	observe(t, m, unschedulable(big, t0.Add(time.Second)))
	gated := withCondition(pod("gated", "", "1", "1Gi"), corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated})
	observe(t, m, gated)
	fc.Step(2 * time.Second)
	observe(t, m, replica("web-2", "n1"))

	if !m.podsSettled() {
		t.Error("pods not settled: every pending Pod was found no Node, or is gated")
	}
	if m.nodesReady() {
		t.Error("nodes ready with n3 not ready")
	}
	if n, ready := m.nodesMatching(labels.SelectorFromSet(pool)); n != 2 || !ready {
		t.Errorf("pool a: %d nodes, ready %v; want 2, true", n, ready)
	}

	s := m.sample(5 * time.Second)
	// n1: 2 replicas (2 CPU, 2Gi); n2: old (500m, 1Gi); over 8 CPU, 16Gi.
	want := contract.ScenarioSample{ElapsedMilliseconds: 5000, PodsPending: 2, PodsBound: 3, NodesUsed: 2, CPUPercent: 31, MemoryPercent: 19}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("sample (-want +got):\n%s", d)
	}

	var r contract.ScenarioReport
	m.fill(&r)
	wantReport := contract.ScenarioReport{
		PodsScheduled: 3, PodsUnschedulable: 1, PodsPreempted: 1,
		// No results stored since the mark: none counted yet.
		SchedulingAttempts:  0,
		BindP50Milliseconds: 2000, BindP99Milliseconds: 4000,
		NodesUsed: 2, CPUMeanPercent: 31, CPUP90Percent: 31, MemoryMeanPercent: 19, MemoryP90Percent: 19,
		// n2 has 3.5 CPU and 7Gi left; n3 is not Ready.
		LargestFit: map[string]string{"cpu": "3500m", "memory": "7Gi"},
		Samples:    []contract.ScenarioSample{want},
	}
	if d := cmp.Diff(wantReport, r); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]map[string]int32{"default/web-*": {"n1": 2}, "default/old": {"n2": 1}}, m.placements()); d != "" {
		t.Errorf("placements (-want +got):\n%s", d)
	}

	// The scheduler's results: big's latest attempt says why each Node
	// was rejected.
	storeResult(t, results, "web-1", schedulingresult.FilterTable{})
	storeResult(t, results, "big", schedulingresult.FilterTable{})
	storeResult(t, results, "big", schedulingresult.FilterTable{Nodes: []string{"n1", "n2", "n3"}, Of: []int{0, 0, 1},
		Verdicts: [][]schedulingresult.PluginResult{
			{{Plugin: "NodeResourcesFit", Result: "Insufficient cpu"}},
			{{Plugin: "NodeResourcesFit", Result: "passed"}, {Plugin: "TaintToleration", Result: "untolerated taint"}},
		}})
	m.scanResults(t.Context())
	m.countRejections(t.Context())
	m.fill(&r)
	if r.SchedulingAttempts != 3 {
		t.Errorf("attempts %d, want the 3 results stored since the mark", r.SchedulingAttempts)
	}
	if d := cmp.Diff(map[string]int64{"NodeResourcesFit": 2, "TaintToleration": 1}, r.Rejections); d != "" {
		t.Errorf("rejections (-want +got):\n%s", d)
	}

	// Without a results store, the attempts are what the Pods showed: 3
	// bindings, 2 distinct failures.
	m.resultsMark = nil
	m.fill(&r)
	if r.SchedulingAttempts != 5 {
		t.Errorf("attempts seen %d, want 5", r.SchedulingAttempts)
	}

	// A Pod just created, not yet tried: not settled.
	observe(t, m, pod("new", "", "1", "1Gi"))
	if m.podsSettled() {
		t.Error("settled with a Pod the scheduler has not tried")
	}
}

func TestPodRequests(t *testing.T) {
	rl := func(cpu, mem string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}
	}
	always := ptr.To(corev1.ContainerRestartPolicyAlways)
	tests := []struct {
		name     string
		spec     corev1.PodSpec
		cpu, mem int64
	}{
		{"containers add up", corev1.PodSpec{Containers: []corev1.Container{{Resources: rl("1", "1Gi")}, {Resources: rl("500m", "1Gi")}}}, 1500, 2 << 30},
		{"a larger init container wins", corev1.PodSpec{InitContainers: []corev1.Container{{Resources: rl("3", "1Gi")}},
			Containers: []corev1.Container{{Resources: rl("1", "2Gi")}}}, 3000, 2 << 30},
		{"sidecars add to both", corev1.PodSpec{InitContainers: []corev1.Container{{Resources: rl("1", "1Gi"), RestartPolicy: always}, {Resources: rl("2", "1Gi")}},
			Containers: []corev1.Container{{Resources: rl("1", "1Gi")}}}, 3000, 2 << 30},
		{"overhead", corev1.PodSpec{Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			Containers: []corev1.Container{{Resources: rl("1", "1Gi")}}}, 1100, 1 << 30},
		{"pod-level requests", corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}},
			Containers: []corev1.Container{{Resources: rl("1", "1Gi")}}}, 2000, 1 << 30},
	}
	for _, tc := range tests {
		cpu, mem := podRequests(&corev1.Pod{Spec: tc.spec})
		if cpu != tc.cpu || mem != tc.mem {
			t.Errorf("%s: %d millicores, %d bytes; want %d, %d", tc.name, cpu, mem, tc.cpu, tc.mem)
		}
	}
}
