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

package source

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

func sourcePod(name, node, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name, UID: types.UID("source-" + name), ResourceVersion: rv},
		Spec: corev1.PodSpec{NodeName: node}}
}

// newTestMirror is a mirror into a fake inner cluster holding inner, with
// the Pods of known written by it already.
func newTestMirror(t *testing.T, mode string, known []*corev1.Pod, inner ...runtime.Object) (*Mirror, *fake.Clientset) {
	t.Helper()
	c := fake.NewClientset(inner...)
	m, err := New(Config{Source: &contract.Source{Mode: mode, Dir: "/s"}, Inner: c, ShadowWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.queue.ShutDown)
	pods := mirror.KindOf("pods")
	for _, p := range known {
		c, _ := m.copy(pods, p)
		m.wrote(keyOf(pods, p), desired{kind: pods, obj: c, rv: p.ResourceVersion}, c)
	}
	return m, c
}

// drain writes every queued change.
func drain(t *testing.T, m *Mirror) {
	t.Helper()
	for m.queue.Len() > 0 {
		m.processNext(context.Background())
	}
}

func innerPods(t *testing.T, c *fake.Clientset) map[string]*corev1.Pod {
	t.Helper()
	list, err := c.CoreV1().Pods("team").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*corev1.Pod{}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out
}

// TestShadow: when the source binds a Pod it showed pending, the source's
// node wins, and the simulator's decision is kept beside it.
func TestShadow(t *testing.T) {
	result := map[string]string{schedulingresult.SummaryAnnotation: `{"outcome":"x"}`}
	innerPod := func(node string, unschedulable bool, annotations map[string]string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "p", UID: "inner-p", Annotations: annotations},
			Spec: corev1.PodSpec{NodeName: node}}
		if unschedulable {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
		}
		return p
	}
	tests := []struct {
		name  string
		mode  string
		inner *corev1.Pod
		// want is the Pod inside: its node, and its annotations.
		wantNode        string
		wantAnnotations map[string]string
		wantCounts      contract.ShadowCounts
	}{
		{
			name: "same node: annotated", mode: contract.SourceModeSync,
			inner:    innerPod("n1", false, result),
			wantNode: "n1",
			wantAnnotations: map[string]string{schedulingresult.SummaryAnnotation: `{"outcome":"x"}`,
				contract.AnnotationShadowNode: "n1", contract.AnnotationShadowAgreement: contract.ShadowSame},
			wantCounts: contract.ShadowCounts{Same: 1},
		},
		{
			name: "another node: moved to the source's", mode: contract.SourceModeSync,
			inner:    innerPod("n2", false, result),
			wantNode: "n1",
			wantAnnotations: map[string]string{schedulingresult.SummaryAnnotation: `{"outcome":"x"}`,
				contract.AnnotationShadowNode: "n2", contract.AnnotationShadowAgreement: contract.ShadowOther},
			wantCounts: contract.ShadowCounts{Other: 1},
		},
		{
			name: "unschedulable inside: bound to the source's", mode: contract.SourceModeSync,
			inner:    innerPod("", true, result),
			wantNode: "n1",
			wantAnnotations: map[string]string{schedulingresult.SummaryAnnotation: `{"outcome":"x"}`,
				contract.AnnotationShadowNode: "", contract.AnnotationShadowAgreement: contract.ShadowUnschedulable},
			wantCounts: contract.ShadowCounts{Unschedulable: 1},
		},
		{
			name: "undecided past the wait: bound, not compared", mode: contract.SourceModeSync,
			inner:    innerPod("", false, nil),
			wantNode: "n1",
		},
		{
			name: "once: no shadow", mode: contract.SourceModeOnce,
			inner:           innerPod("n2", false, result),
			wantNode:        "n1",
			wantAnnotations: map[string]string{schedulingresult.SummaryAnnotation: `{"outcome":"x"}`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, c := newTestMirror(t, tc.mode, []*corev1.Pod{sourcePod("p", "", "1")}, tc.inner)
			m.observe(mirror.KindOf("pods"), watch.Modified, sourcePod("p", "n1", "2"))
			drainRetries(t, m)
			got := innerPods(t, c)["p"]
			if got == nil {
				t.Fatal("no pod inside")
			}
			if got.Spec.NodeName != tc.wantNode {
				t.Errorf("pod inside on %q, want %q", got.Spec.NodeName, tc.wantNode)
			}
			if d := cmp.Diff(tc.wantAnnotations, got.Annotations); d != "" {
				t.Errorf("annotations (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantCounts, m.Status().Shadow); d != "" {
				t.Errorf("shadow counts (-want +got):\n%s", d)
			}
		})
	}
}

// TestShadowRetried: a Pod moved to the source's node whose create fails
// after the Pod inside was deleted is made again, on the next try, with
// what was decided: the simulator's result and choice, counted once.
func TestShadowRetried(t *testing.T) {
	result := map[string]string{schedulingresult.SummaryAnnotation: `{"outcome":"x"}`}
	inner := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "p", UID: "inner-p", Annotations: result},
		Spec: corev1.PodSpec{NodeName: "n2"}}
	m, c := newTestMirror(t, contract.SourceModeSync, []*corev1.Pod{sourcePod("p", "", "1")}, inner)
	failed := false
	c.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if !failed {
			failed = true
			return true, nil, apierrors.NewServiceUnavailable("the inner apiserver is busy")
		}
		return false, nil, nil
	})
	m.observe(mirror.KindOf("pods"), watch.Modified, sourcePod("p", "n1", "2"))
	drainRetries(t, m)
	if !failed {
		t.Fatal("no create: the test did not fail one")
	}
	got := innerPods(t, c)["p"]
	if got == nil {
		t.Fatal("no pod inside")
	}
	want := map[string]string{schedulingresult.SummaryAnnotation: `{"outcome":"x"}`,
		contract.AnnotationShadowNode: "n2", contract.AnnotationShadowAgreement: contract.ShadowOther}
	if d := cmp.Diff(want, got.Annotations); d != "" || got.Spec.NodeName != "n1" {
		t.Errorf("pod inside on %q, annotations (-want +got):\n%s", got.Spec.NodeName, d)
	}
	if d := cmp.Diff(contract.ShadowCounts{Other: 1}, m.Status().Shadow); d != "" {
		t.Errorf("shadow counts (-want +got):\n%s", d)
	}
}

// TestShadowHoldsNoWorker: while the simulator's scheduler has not
// decided a Pod the source bound, the worker that looked at it goes on
// with other changes, and the Pod is written once decided.
func TestShadowHoldsNoWorker(t *testing.T) {
	pods := mirror.KindOf("pods")
	inner := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "p", UID: "inner-p"}}
	other := sourcePod("q", "n1", "1")
	otherInside, _ := pods.Transform(other.DeepCopy(), nil)
	m, c := newTestMirror(t, contract.SourceModeSync, []*corev1.Pod{sourcePod("p", "", "1"), other}, inner, otherInside)
	m.cfg.ShadowWait = time.Hour
	m.observe(pods, watch.Modified, sourcePod("p", "n1", "2"))
	relabelled := sourcePod("q", "n1", "2")
	relabelled.Labels = map[string]string{"step": "2"}
	m.observe(pods, watch.Modified, relabelled)
	// One worker, two changes: the undecided Pod's look must not hold it.
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.processNext(context.Background())
		m.processNext(context.Background())
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a worker still waits for the simulator's decision")
	}
	if got := innerPods(t, c)["q"].Labels["step"]; got != "2" {
		t.Errorf("the other Pod's label inside = %q, want 2", got)
	}
	if got := innerPods(t, c)["p"]; got.Spec.NodeName != "" || m.pending() != 1 {
		t.Fatalf("the undecided Pod: on %q inside, %d changes left; want it left pending, its change kept", got.Spec.NodeName, m.pending())
	}
	// All but a Pod the simulator's scheduler has yet to decide is
	// written: the mirror is synced, and says when.
	if s := m.Status(); s.LastSyncTime == nil {
		t.Error("no lastSyncTime while only the undecided Pod is left")
	}
	// The scheduler decides: the next look writes it where the source put it.
	decided := inner.DeepCopy()
	decided.Spec.NodeName = "n2"
	decided.Annotations = map[string]string{schedulingresult.SummaryAnnotation: "{}"}
	if _, err := c.CoreV1().Pods("team").Update(context.Background(), decided, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	drainRetries(t, m)
	got := innerPods(t, c)["p"]
	if got.Spec.NodeName != "n1" || got.Annotations[contract.AnnotationShadowAgreement] != contract.ShadowOther {
		t.Errorf("pod inside on %q with annotations %v, want on n1, agreement %s", got.Spec.NodeName, got.Annotations, contract.ShadowOther)
	}
}

// drainRetries writes every queued change, and those tried again after a
// failure, until none is left.
func drainRetries(t *testing.T, m *Mirror) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for m.pending() > 0 || m.queue.Len() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d changes still not written", m.pending())
		}
		if m.queue.Len() == 0 {
			time.Sleep(time.Millisecond)
			continue
		}
		m.processNext(context.Background())
	}
}

// TestShadowOfAPodNotSeenInside: the source showed a Pod pending, then
// bound, before the mirror wrote it: it is made pending first, for the
// simulator's scheduler to decide too.
func TestShadowOfAPodNotSeenInside(t *testing.T) {
	m, c := newTestMirror(t, contract.SourceModeSync, nil)
	pods := mirror.KindOf("pods")
	m.observe(pods, watch.Added, sourcePod("p", "", "1"))
	m.observe(pods, watch.Modified, sourcePod("p", "n1", "2"))
	drainRetries(t, m)
	var created []string
	for _, a := range c.Actions() {
		if a.GetVerb() == "create" && a.GetResource().Resource == "pods" {
			p := a.(interface{ GetObject() runtime.Object }).GetObject().(*corev1.Pod)
			created = append(created, p.Spec.NodeName)
		}
	}
	// Pending first, then, undecided past the wait, on the source's node.
	if d := cmp.Diff([]string{"", "n1"}, created); d != "" {
		t.Errorf("pods created, by node (-want +got):\n%s", d)
	}
}

// TestChanges: the source's changes are written inside, and a list after
// a broken watch deletes what the source no longer has.
// TestDeletedWhileWritten: a Pod's deletion seen while its create is
// still being written is not taken for that of a Pod never mirrored: the
// Pod goes once the write is over. (The source benchmark lost 8 of 1,500
// deletes so: each right after the mirror showed the Pod, before the
// mirror's worker had its create's answer.)
func TestDeletedWhileWritten(t *testing.T) {
	pods := mirror.KindOf("pods")
	m, c := newTestMirror(t, contract.SourceModeSync, nil)
	deleted := false
	c.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if !deleted {
			deleted = true
			m.observe(pods, watch.Deleted, sourcePod("a", "n1", "2"))
		}
		return false, nil, nil
	})
	m.observe(pods, watch.Added, sourcePod("a", "n1", "1"))
	drain(t, m)
	if !deleted {
		t.Fatal("no create: the test did not delete the Pod mid-write")
	}
	if got := innerPods(t, c); len(got) != 0 {
		t.Errorf("pods inside after the source deleted it: %v", slices.Collect(maps.Keys(got)))
	}
	if got := m.Status().Objects["pods"]; got != 0 {
		t.Errorf("status.objects[pods] = %d, want 0", got)
	}
}

// TestChangeOfAKnownObject: a change of an object the mirror wrote is a
// read and an update inside, never a create that the apiserver would admit
// and validate before it fails.
func TestChangeOfAKnownObject(t *testing.T) {
	pods := mirror.KindOf("pods")
	known := sourcePod("a", "n1", "1")
	c0, _ := pods.Transform(known, nil)
	m, c := newTestMirror(t, contract.SourceModeSync, []*corev1.Pod{known}, c0)
	before := len(c.Actions())
	changed := sourcePod("a", "n1", "2")
	changed.Labels = map[string]string{"step": "2"}
	m.observe(pods, watch.Modified, changed)
	drain(t, m)
	var verbs []string
	for _, a := range c.Actions()[before:] {
		verbs = append(verbs, a.GetVerb())
	}
	if d := cmp.Diff([]string{"patch"}, verbs); d != "" {
		t.Errorf("calls inside (-want +got):\n%s", d)
	}
	if got := innerPods(t, c)["a"].Labels["step"]; got != "2" {
		t.Errorf("label step inside = %q, want 2", got)
	}
}

// TestRelabelKeepsTheSimulators: a relabel is one patch that removes the
// labels and annotations the source removed and keeps the simulator's
// own annotations (its scheduler's result) on the Pod inside; a Pod gone
// inside is made again.
func TestRelabelKeepsTheSimulators(t *testing.T) {
	pods := mirror.KindOf("pods")
	known := sourcePod("a", "", "1")
	known.Labels = map[string]string{"app": "web", "old": "x"}
	known.Annotations = map[string]string{"note": "1"}
	c0, _ := pods.Transform(known.DeepCopy(), nil)
	inside := c0.(*corev1.Pod).DeepCopy()
	inside.Spec.NodeName = "n2"
	inside.Annotations[schedulingresult.SummaryAnnotation] = `{"outcome":"Bound"}`
	m, c := newTestMirror(t, contract.SourceModeSync, []*corev1.Pod{known}, inside)
	changed := sourcePod("a", "", "2")
	changed.Labels = map[string]string{"app": "api"}
	m.observe(pods, watch.Modified, changed)
	drain(t, m)
	got := innerPods(t, c)["a"]
	if d := cmp.Diff(map[string]string{"app": "api"}, got.Labels); d != "" {
		t.Errorf("labels inside (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{schedulingresult.SummaryAnnotation: `{"outcome":"Bound"}`}, got.Annotations); d != "" {
		t.Errorf("annotations inside (-want +got):\n%s", d)
	}
	if got.Spec.NodeName != "n2" {
		t.Errorf("node inside %q, want the simulator's n2", got.Spec.NodeName)
	}

	if err := c.CoreV1().Pods("team").Delete(t.Context(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	again := sourcePod("a", "", "3")
	again.Labels = map[string]string{"app": "db"}
	m.observe(pods, watch.Modified, again)
	drain(t, m)
	if got := innerPods(t, c)["a"]; got == nil || got.Labels["app"] != "db" {
		t.Errorf("pod inside after it was gone: %v, want it made again with app=db", got)
	}
}

func TestChanges(t *testing.T) {
	pods := mirror.KindOf("pods")
	tests := []struct {
		name   string
		known  []*corev1.Pod
		change func(m *Mirror)
		// want are the Pods inside, by node.
		want       map[string]string
		wantCounts map[string]int64
	}{
		{
			name:       "added",
			change:     func(m *Mirror) { m.observe(pods, watch.Added, sourcePod("a", "n1", "1")) },
			want:       map[string]string{"a": "n1"},
			wantCounts: map[string]int64{"pods": 1},
		},
		{
			name:  "deleted",
			known: []*corev1.Pod{sourcePod("a", "n1", "1"), sourcePod("b", "n1", "1")},
			change: func(m *Mirror) {
				m.observe(pods, watch.Deleted, sourcePod("a", "n1", "2"))
			},
			want:       map[string]string{"b": "n1"},
			wantCounts: map[string]int64{"pods": 1},
		},
		{
			name:  "finished: deleted",
			known: []*corev1.Pod{sourcePod("a", "n1", "1")},
			change: func(m *Mirror) {
				p := sourcePod("a", "n1", "2")
				p.Status.Phase = corev1.PodSucceeded
				m.observe(pods, watch.Modified, p)
			},
			want:       map[string]string{},
			wantCounts: map[string]int64{},
		},
		{
			name:  "relisted: gone ones deleted, unchanged ones left",
			known: []*corev1.Pod{sourcePod("a", "n1", "1"), sourcePod("b", "n1", "1")},
			change: func(m *Mirror) {
				m.relist(pods, "", []any{sourcePod("a", "n1", "1"), sourcePod("c", "n2", "5")})
			},
			want:       map[string]string{"a": "n1", "c": "n2"},
			wantCounts: map[string]int64{"pods": 2},
		},
		{
			name:  "relisted in a namespace: others' objects left",
			known: []*corev1.Pod{sourcePod("a", "n1", "1")},
			change: func(m *Mirror) {
				m.relist(pods, "elsewhere", nil)
			},
			want:       map[string]string{"a": "n1"},
			wantCounts: map[string]int64{"pods": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var inner []runtime.Object
			for _, p := range tc.known {
				c, _ := pods.Transform(p, nil)
				inner = append(inner, c)
			}
			m, c := newTestMirror(t, contract.SourceModeSync, tc.known, inner...)
			before := len(c.Actions())
			tc.change(m)
			drain(t, m)
			got := map[string]string{}
			for name, p := range innerPods(t, c) {
				got[name] = p.Spec.NodeName
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("pods inside (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantCounts, m.Status().Objects); d != "" {
				t.Errorf("status.objects (-want +got):\n%s", d)
			}
			if tc.name == "relisted: gone ones deleted, unchanged ones left" {
				for _, a := range c.Actions()[before:] {
					if slices.Contains([]string{"update", "create"}, a.GetVerb()) {
						if n := a.(interface{ GetObject() runtime.Object }).GetObject().(*corev1.Pod).Name; n == "a" {
							t.Errorf("unchanged pod a written again: %s", a.GetVerb())
						}
					}
				}
			}
		})
	}
}
