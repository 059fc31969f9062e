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

package sink

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"

	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/recorder"
)

var scorePlugins = []string{"ImageLocality", "InterPodAffinity", "NodeAffinity", "NodeResourcesBalancedAllocation", "NodeResourcesFit", "PodTopologySpread", "TaintToleration", "VolumeBinding"}

// bigAttempt is an attempt at 5,000 nodes: unschedulable ones fail on
// every node, scheduled ones score 500 (the scheduler's adaptive share).
func bigAttempt(outcome recorder.Outcome) *recorder.Attempt {
	weights := map[string]int64{}
	for _, p := range scorePlugins {
		weights[p] = 1
	}
	a := recorder.NewAttempt(types.NamespacedName{Namespace: "default", Name: "web-1"}, "uid-1", "default-scheduler", 5000,
		recorder.NewPlugins(append([]string{"NodeResourcesFit", "TaintToleration"}, scorePlugins...), weights))
	a.Outcome = outcome
	for i := range 5000 {
		node := fmt.Sprintf("node-%06d", i)
		switch {
		case outcome == recorder.Bound && i < 500:
			for _, p := range scorePlugins {
				a.SetFilter(node, p, recorder.Passed)
				a.SetScore(node, p, int64(i%100))
			}
		case outcome == recorder.Bound:
		case i < 10:
			a.SetFilter(node, "NodeResourcesFit", recorder.Passed)
			a.SetFilter(node, "TaintToleration", "node(s) had untolerated taint(s)")
		default:
			a.SetFilter(node, "NodeResourcesFit", "Insufficient cpu")
		}
	}
	if outcome == recorder.Bound {
		a.SelectedNode, a.EvaluatedNodes, a.FeasibleNodes = "node-000099", 500, 500
	}
	return a
}

func values(patch map[string]*string) map[string]string {
	out := map[string]string{}
	for k, v := range patch {
		if v != nil {
			out[k] = *v
		}
	}
	return out
}

// At 5,000 nodes the Pod keeps its compact result and stays within the
// annotation size limit, however many attempts it has had.
func TestAnnotationsAt5000Nodes(t *testing.T) {
	for _, outcome := range []recorder.Outcome{recorder.Unschedulable, recorder.Bound} {
		t.Run(string(outcome), func(t *testing.T) {
			r, err := render(bigAttempt(outcome).Result())
			if err != nil {
				t.Fatal(err)
			}
			var ann map[string]string // the Pod's, after each attempt's patch
			for range 10 {
				patch, err := r.annotations(ann)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range []string{"filter-result", "score-result", "finalscore-result"} {
					if v, ok := patch[UpstreamPrefix+k]; !ok || v != nil {
						t.Errorf("%s is not removed at 5,000 nodes", k)
					}
				}
				ann = values(patch)
			}
			if err := apivalidation.ValidateAnnotationsSize(ann); err != nil {
				t.Errorf("annotations too large: %v", err)
			}
			var h []map[string]string
			if err := json.Unmarshal([]byte(ann[ResultHistory]), &h); err != nil || len(h) != maxHistory {
				t.Errorf("history of %d entries (%v), want %d", len(h), err, maxHistory)
			}
			var s recorder.Summary
			if err := json.Unmarshal([]byte(ann[SummaryAnnotation]), &s); err != nil {
				t.Fatal(err)
			}
			switch outcome {
			case recorder.Unschedulable:
				want := []recorder.FilterFailure{{Plugin: "NodeResourcesFit", Reason: "Insufficient cpu", Nodes: 4990}, {Plugin: "TaintToleration", Reason: "node(s) had untolerated taint(s)", Nodes: 10}}
				if d := cmp.Diff(want, s.FilterFailures); d != "" {
					t.Errorf("filter failures (-want +got):\n%s", d)
				}
				if got, want := s.Text(), "0/5000 nodes: NodeResourcesFit: Insufficient cpu (4990), TaintToleration: node(s) had untolerated taint(s) (10)"; got != want {
					t.Errorf("summary %q, want %q", got, want)
				}
			case recorder.Bound:
				if len(s.TopScores) != 10 || s.TopScores[0].Score != 99*int64(len(scorePlugins)) {
					t.Errorf("top scores %v", s.TopScores)
				}
				if ann[SelectedNode] != "node-000099" {
					t.Errorf("selected-node %q", ann[SelectedNode])
				}
			}
		})
	}
}

// result-history holds a Pod's earlier attempts, newest first, each as the
// Pod's annotations showed it; the attempt itself is the top-level keys.
func TestResultHistory(t *testing.T) {
	attempt := func(outcome recorder.Outcome, node string) *rendered {
		a := recorder.NewAttempt(types.NamespacedName{Namespace: "default", Name: "web-1"}, "uid-1", "default-scheduler", 2,
			recorder.NewPlugins([]string{"NodeResourcesFit"}, map[string]int64{"NodeResourcesFit": 1}))
		a.Outcome = outcome
		if outcome == recorder.Bound {
			a.SelectedNode = node
			a.Bind["DefaultBinder"] = recorder.Success
		} else {
			a.NominatedNode = node
			a.PostFilter["DefaultPreemption"] = recorder.Success
		}
		a.SetFilter("n1", "NodeResourcesFit", "Insufficient cpu")
		r, err := render(a.Result())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.release)
		return r
	}
	apply := func(ann map[string]string, patch map[string]*string) map[string]string {
		out := map[string]string{"app": "web"} // not ours: kept
		for k, v := range ann {
			out[k] = v
		}
		for k, v := range patch {
			if v == nil {
				delete(out, k)
			} else {
				out[k] = *v
			}
		}
		return out
	}
	history := func(ann map[string]string) []map[string]string {
		t.Helper()
		var h []map[string]string
		if v, ok := ann[ResultHistory]; ok {
			if err := json.Unmarshal([]byte(v), &h); err != nil {
				t.Fatalf("result-history %q: %v", v, err)
			}
		}
		return h
	}

	// First attempt: no history at all.
	first, err := attempt(recorder.Unschedulable, "n2").annotations(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := first[ResultHistory]; ok {
		t.Errorf("first attempt writes result-history %v, want none", first[ResultHistory])
	}
	ann := apply(nil, first)
	// What the Pod showed of it, but the per-node keys (node lists, which
	// grow with the cluster).
	shown := maps.Clone(ann)
	delete(shown, "app")
	for _, k := range []string{"prefilter-result", "filter-result", "score-result", "finalscore-result"} {
		delete(shown, UpstreamPrefix+k)
	}

	// Second attempt: the first moves into the history, as the Pod showed it.
	second, err := attempt(recorder.Bound, "n2").annotations(ann)
	if err != nil {
		t.Fatal(err)
	}
	ann = apply(ann, second)
	h := history(ann)
	if len(h) != 1 {
		t.Fatalf("history after two attempts: %v, want one entry", h)
	}
	if diff := cmp.Diff(shown, h[0]); diff != "" {
		t.Errorf("history entry of the first attempt (-its annotations +entry):\n%s", diff)
	}
	if ann[SelectedNode] != "n2" || ann["app"] != "web" {
		t.Errorf("after binding: selected-node %q, app %q", ann[SelectedNode], ann["app"])
	}

	// Newest first, at most maxHistory.
	var summaries []string
	for range maxHistory + 2 {
		summaries = append([]string{ann[SummaryAnnotation]}, summaries...)
		p, err := attempt(recorder.Unschedulable, "n2").annotations(ann)
		if err != nil {
			t.Fatal(err)
		}
		ann = apply(ann, p)
	}
	h = history(ann)
	if len(h) != maxHistory {
		t.Fatalf("history of %d entries, want %d", len(h), maxHistory)
	}
	for i, e := range h {
		if e[SummaryAnnotation] != summaries[i] {
			t.Errorf("history[%d] is %s, want %s", i, e[SummaryAnnotation], summaries[i])
		}
	}

	// A summary planted on the Pod, too large for the history, is not
	// copied into it: the Pod's annotations stay within the limit.
	planted := map[string]string{SummaryAnnotation: strings.Repeat("x", 200<<10), ResultHistory: ann[ResultHistory]}
	p, err := attempt(recorder.Bound, "n2").annotations(planted)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := p[ResultHistory]; !ok || v != nil {
		t.Errorf("a history that cannot fit is not removed: %v", v)
	}
	if err := apivalidation.ValidateAnnotationsSize(values(p)); err != nil {
		t.Errorf("annotations after a planted summary: %v", err)
	}

	// A broken history without a previous attempt is removed.
	p, err = attempt(recorder.Bound, "n2").annotations(map[string]string{ResultHistory: "{broken"})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := p[ResultHistory]; !ok || v != nil {
		t.Errorf("a broken history is not removed: %v", v)
	}
}

// A small cluster gets kube-scheduler-simulator's annotations, in its shapes.
func TestUpstreamAnnotations(t *testing.T) {
	a := recorder.NewAttempt(types.NamespacedName{Namespace: "default", Name: "web-1"}, "uid-1", "default-scheduler", 2,
		recorder.NewPlugins([]string{"NodeResourcesFit"}, map[string]int64{"NodeResourcesFit": 2}))
	a.Outcome, a.SelectedNode = recorder.Bound, "n1"
	a.SetFilter("n1", "NodeResourcesFit", recorder.Passed)
	a.SetFilter("n2", "NodeResourcesFit", "Insufficient cpu")
	a.SetScore("n1", "NodeResourcesFit", 40)
	a.Bind["DefaultBinder"] = recorder.Success
	r, err := render(a.Result())
	if err != nil {
		t.Fatal(err)
	}
	patch, err := r.annotations(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := values(patch)
	for k, want := range map[string]string{
		UpstreamPrefix + "filter-result":     `{"n1":{"NodeResourcesFit":"passed"},"n2":{"NodeResourcesFit":"Insufficient cpu"}}`,
		UpstreamPrefix + "score-result":      `{"n1":{"NodeResourcesFit":"40"}}`,
		UpstreamPrefix + "finalscore-result": `{"n1":{"NodeResourcesFit":"80"}}`,
		UpstreamPrefix + "bind-result":       `{"DefaultBinder":"success"}`,
		UpstreamPrefix + "permit-result":     `{}`,
		SelectedNode:                         "n1",
	} {
		if got[k] != want {
			t.Errorf("%s = %s, want %s", k, got[k], want)
		}
	}
}

func TestStoreEvictsOldest(t *testing.T) {
	dir := t.TempDir()
	s, err := NewStore(dir, 25)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if err := s.Put("ns", name, []byte("0123456789")); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(name string) bool {
		_, err := os.Stat(Path(dir, "ns", name))
		return err == nil
	}
	if exists("a") || !exists("b") || !exists("c") {
		t.Errorf("after 30 bytes in a 25-byte store: a %v, b %v, c %v; want only a evicted", exists("a"), exists("b"), exists("c"))
	}
	// A new store (a restarted scheduler) counts what is there.
	if _, err := NewStore(dir, 15); err != nil {
		t.Fatal(err)
	}
	if exists("b") || !exists("c") {
		t.Errorf("reopened at 15 bytes: b %v, c %v; want b evicted", exists("b"), exists("c"))
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "ns", "*.tmp")); len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
	// A reset removes the namespaces' directories under the store.
	if err := os.RemoveAll(filepath.Join(dir, "ns")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("ns", "d", []byte("0123456789")); err != nil {
		t.Fatalf("a result after its directory was removed: %v", err)
	}
	if !exists("d") {
		t.Error("a result after its directory was removed: not stored")
	}
}

// BenchmarkRender is what the sink does with an attempt at 5,000 nodes
// besides the API calls: render it and store the full result.
func BenchmarkRender(b *testing.B) {
	store, err := NewStore(b.TempDir(), 512<<20)
	if err != nil {
		b.Fatal(err)
	}
	for _, outcome := range []recorder.Outcome{recorder.Bound, recorder.Unschedulable} {
		a := bigAttempt(outcome)
		b.Run(string(outcome), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := render(a.Result())
				if err != nil {
					b.Fatal(err)
				}
				if err := store.Put("default", "web-1", r.document()); err != nil {
					b.Fatal(err)
				}
				if _, err := r.annotations(nil); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(r.document())))
				r.release()
			}
		})
	}
}

// TestBindingAnnotations: the Binding carries what the patch would set,
// and the full result is stored; a Pod with a per-node annotation that the
// result removes is left to the patch (a Binding cannot remove one).
func TestBindingAnnotations(t *testing.T) {
	dir := t.TempDir()
	store, err := NewStore(dir, 512<<20)
	if err != nil {
		t.Fatal(err)
	}
	s := &Sink{store: store}
	a := bigAttempt(recorder.Bound)
	r, err := render(a.Result())
	if err != nil {
		t.Fatal(err)
	}
	patch, err := r.annotations(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := values(patch)
	r.release()

	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", UID: "uid-1"}}
	got, ok := s.BindingAnnotations(a.Result(), pod)
	if !ok {
		t.Fatal("no annotations for the Binding of a Pod without any")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Binding annotations (-patch +binding):\n%s", diff)
	}
	if _, err := os.Stat(Path(dir, "default", "web-1")); err != nil {
		t.Errorf("full result not stored: %v", err)
	}

	pod.Annotations = map[string]string{UpstreamPrefix + "filter-result": "{}"}
	if got, ok := s.BindingAnnotations(a.Result(), pod); ok {
		t.Errorf("Binding annotations %v for a Pod whose filter-result they cannot remove", got)
	}
}

// TestStalePatchIsNotSent: results reach the API out of order (parallel
// workers; a Binding's annotations skip the queues), so the patch of an
// attempt is not sent once a later attempt of its Pod was published; its
// own and later ones are.
func TestStalePatchIsNotSent(t *testing.T) {
	store, err := NewStore(t.TempDir(), 512<<20)
	if err != nil {
		t.Fatal(err)
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", UID: "uid-1"}}
	client := fake.NewClientset(pod)
	s := &Sink{client: client, events: events.NewFakeRecorder(10), store: store}
	bound := bigAttempt(recorder.Bound)
	if _, ok := s.BindingAnnotations(bound.Result(), pod); !ok {
		t.Fatal("no annotations for the Binding")
	}
	published := bound.Result().Summary.Time
	patches := func() int {
		n := 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "patch" {
				n++
			}
		}
		return n
	}
	patch := []byte(`{"metadata":{"annotations":{"k":"v"}}}`)
	s.call(t.Context(), &apiCalls{pod: pod, start: published.Add(-time.Second), patch: patch, note: "earlier"})
	if n := patches(); n != 0 {
		t.Errorf("%d patches of an attempt older than the annotated Binding's, want none", n)
	}
	s.call(t.Context(), &apiCalls{pod: pod, start: published, patch: patch, note: "the same attempt, its binding failed"})
	s.call(t.Context(), &apiCalls{pod: pod, start: published.Add(time.Second), patch: patch, note: "later"})
	if n := patches(); n != 2 {
		t.Errorf("%d patches of the binding's own attempt and a later one, want 2", n)
	}

	// Two patches of another Pod, the later attempt's rendered first.
	other := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-2", UID: "uid-2"}}
	s.newest(other.UID, published.Add(time.Second))
	s.call(t.Context(), &apiCalls{pod: other, start: published, patch: patch, note: "earlier, sent last"})
	if n := patches(); n != 2 {
		t.Errorf("the earlier attempt's patch was sent after a later attempt's was published")
	}
}

// TestEventsOnlyForUnboundPods: an attempt that did not bind its Pod says
// why in a Warning Event; a bound Pod's result gets no Event of its own
// (the scheduler's Scheduled Event carries it), whether its Binding carried
// the annotations or a patch sets them.
func TestEventsOnlyForUnboundPods(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", UID: "uid-1"}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := indexer.Add(pod); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		outcome   recorder.Outcome
		annotated bool
		patches   int
		event     string
	}{
		{name: "unschedulable", outcome: recorder.Unschedulable, patches: 1, event: "Warning " + EventReason + " 0/5000 nodes: NodeResourcesFit: Insufficient cpu (4990), TaintToleration: node(s) had untolerated taint(s) (10)"},
		{name: "bound, patched", outcome: recorder.Bound, patches: 1},
		{name: "bound, annotated on its Binding", outcome: recorder.Bound, annotated: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, err := NewStore(t.TempDir(), 512<<20)
			if err != nil {
				t.Fatal(err)
			}
			client := fake.NewClientset(pod)
			recorded := events.NewFakeRecorder(10)
			s := New(client, corelisters.NewPodLister(indexer), recorded, store, 1)
			a := bigAttempt(tc.outcome)
			a.AnnotatedOnBinding = tc.annotated
			s.render(t.Context(), a)
			for len(s.calls) > 0 {
				s.call(t.Context(), <-s.calls)
			}
			patches := 0
			for _, action := range client.Actions() {
				if action.GetVerb() == "patch" {
					patches++
				}
			}
			if patches != tc.patches {
				t.Errorf("%d patches, want %d", patches, tc.patches)
			}
			var got []string
			for len(recorded.Events) > 0 {
				got = append(got, <-recorded.Events)
			}
			var want []string
			if tc.event != "" {
				want = []string{tc.event}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Events (-want +got):\n%s", diff)
			}
			if n := s.Published(); n != 1 {
				t.Errorf("published %d, want 1", n)
			}
		})
	}
}
