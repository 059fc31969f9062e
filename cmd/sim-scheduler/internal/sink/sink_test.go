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
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
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
	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

var scorePlugins = []string{"ImageLocality", "InterPodAffinity", "NodeAffinity", "NodeResourcesBalancedAllocation", "NodeResourcesFit", "PodTopologySpread", "TaintToleration", "VolumeBinding"}

// scoreWeights weighs each of scorePlugins 1.
func scoreWeights() map[string]int64 {
	weights := map[string]int64{}
	for _, p := range scorePlugins {
		weights[p] = 1
	}
	return weights
}

// bigAttempt is an attempt at 5,000 nodes: unschedulable ones fail on
// every node, scheduled ones score 500 (the scheduler's adaptive share).
func bigAttempt(outcome recorder.Outcome) *recorder.Attempt {
	a := recorder.NewAttempt(types.NamespacedName{Namespace: "default", Name: "web-1"}, "uid-1", "default-scheduler", 5000,
		recorder.NewPlugins(append([]string{"NodeResourcesFit", "TaintToleration"}, scorePlugins...), scoreWeights()))
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

// boundAttempt is an attempt that bound a Pod among nodes nodes, every one
// passing each filter and scored by each score plugin.
func boundAttempt(nodes int) *recorder.Attempt {
	filters := append([]string{"NodeUnschedulable", "NodeName"}, scorePlugins...)
	a := recorder.NewAttempt(types.NamespacedName{Namespace: "default", Name: "web-1"}, "uid-1", "default-scheduler", nodes,
		recorder.NewPlugins(filters, scoreWeights()))
	a.Outcome = recorder.Bound
	for i := range nodes {
		node := fmt.Sprintf("node-%06d", i)
		for _, p := range filters {
			a.SetFilter(node, p, recorder.Passed)
		}
		for _, p := range scorePlugins {
			a.SetScore(node, p, int64(i%100))
		}
	}
	a.SelectedNode, a.EvaluatedNodes, a.FeasibleNodes = "node-000000", nodes, nodes
	return a
}

// The per-node results go on the Pods of a few dozen nodes, not of 50: a
// bound Pod's later writes and every copy of it would carry them.
func TestPerNodeAnnotationsBudget(t *testing.T) {
	perNode := []string{"filter-result", "score-result", "finalscore-result"}
	for _, tc := range []struct {
		nodes int
		want  bool
	}{{1, true}, {10, true}, {50, false}, {500, false}} {
		r, err := render(boundAttempt(tc.nodes).Result())
		if err != nil {
			t.Fatal(err)
		}
		patch, err := r.annotations(nil)
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, k := range perNode {
			v, set := patch[UpstreamPrefix+k]
			if got := set && v != nil; got != tc.want {
				t.Errorf("%d nodes: %s on the Pod %v, want %v", tc.nodes, k, got, tc.want)
			}
			if set && v != nil {
				size += len(*v)
			}
		}
		if size > perNodeBudget {
			t.Errorf("%d nodes: %d bytes of per-node results, more than %d", tc.nodes, size, perNodeBudget)
		}
	}
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

// storedResult reads the latest result of namespace/name as the Store's
// layout says a reader must (cmd/simulator/internal/server serves it so): the Pod's
// last whole line in the newest segment that has one.
func storedResult(t *testing.T, dir, namespace, name string) (string, bool) {
	t.Helper()
	indexes, err := filepath.Glob(filepath.Join(dir, "*.idx"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(indexes)
	for i := len(indexes) - 1; i >= 0; i-- {
		data, err := os.ReadFile(indexes[i])
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		for j := len(lines) - 1; j >= 0; j-- {
			var key string
			var off, n int64
			if !strings.HasSuffix(lines[j], "\n") {
				continue
			}
			if _, err := fmt.Sscanf(lines[j], "%s %d %d\n", &key, &off, &n); err != nil {
				t.Fatalf("%s: line %q: %v", indexes[i], lines[j], err)
			}
			if key != namespace+"/"+name {
				continue
			}
			log, err := os.ReadFile(strings.TrimSuffix(indexes[i], ".idx") + ".log")
			if err != nil {
				t.Fatal(err)
			}
			if off+n > int64(len(log)) {
				t.Fatalf("%s: %s at %d+%d beyond the log's %d bytes", indexes[i], key, off, n, len(log))
			}
			return string(log[off : off+n]), true
		}
	}
	return "", false
}

func TestStoreEvictsOldest(t *testing.T) {
	dir := t.TempDir()
	// Files of no segment are not the store's.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	// 25 bytes in all: segments of 3 bytes, so one result each.
	s, err := NewStore(dir, 25)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if err := s.Put("ns", name, []byte(name+"123456789")); err != nil {
			t.Fatal(err)
		}
	}
	stored := func(name string) bool {
		doc, ok := storedResult(t, dir, "ns", name)
		if ok && doc != name+"123456789" {
			t.Errorf("ns/%s: %q", name, doc)
		}
		return ok
	}
	if stored("a") || !stored("b") || !stored("c") {
		t.Errorf("after 30 bytes in a 25-byte store: a %v, b %v, c %v; want only a evicted", stored("a"), stored("b"), stored("c"))
	}
	// A new store (a restarted scheduler) counts what is there, and writes
	// after it.
	s, err = NewStore(dir, 15)
	if err != nil {
		t.Fatal(err)
	}
	if stored("b") || !stored("c") {
		t.Errorf("reopened at 15 bytes: b %v, c %v; want b evicted", stored("b"), stored("c"))
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file of no segment: %v", err)
	}
	if err := s.Put("ns", "c", []byte("c-second")); err != nil {
		t.Fatal(err)
	}
	if doc, _ := storedResult(t, dir, "ns", "c"); doc != "c-second" {
		t.Errorf("ns/c after a second result: %q, want the second", doc)
	}
}

// TestStoreAfterReset: a reset removes everything in the directory, the
// segment being written too; what comes after is stored and found, and
// nothing from before.
func TestStoreAfterReset(t *testing.T) {
	dir := t.TempDir()
	s, err := NewStore(dir, 1<<20) // room for both in one segment
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put("ns", "c", []byte("c123456789")); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put("ns", "d", []byte("d123456789")); err != nil {
		t.Fatalf("a result after a reset: %v", err)
	}
	_, c := storedResult(t, dir, "ns", "c")
	if d, _ := storedResult(t, dir, "ns", "d"); d != "d123456789" || c {
		t.Errorf("after a reset: d %q, c found %v; want only d", d, c)
	}
}

// TestStoreKeepsWholeSegments: results share a segment until it is full;
// a Pod's latest result is its last one, in whichever segment.
func TestStoreKeepsWholeSegments(t *testing.T) {
	dir := t.TempDir()
	s, err := NewStore(dir, 8*100) // segments of 100 bytes
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if err := s.Put("ns", fmt.Sprintf("p%d", i%7), fmt.Appendf(nil, "result %02d of p%d", i, i%7)); err != nil {
			t.Fatal(err)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 5 {
		t.Errorf("%d segments for 30 results of 15 bytes in segments of 100 bytes; want 5 of 6 results", len(logs))
	}
	for p := range 7 {
		last := p + 28
		for last >= 30 {
			last -= 7
		}
		want := fmt.Sprintf("result %02d of p%d", last, p)
		if doc, ok := storedResult(t, dir, "ns", fmt.Sprintf("p%d", p)); doc != want {
			t.Errorf("ns/p%d: %q (found %v), want %q", p, doc, ok, want)
		}
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
	stored, ok := storedResult(t, dir, "default", "web-1")
	var doc schedulingresult.Document
	if err := doc.UnmarshalBinary([]byte(stored)); !ok || err != nil {
		t.Fatalf("full result not stored: found %v, %d bytes: %v", ok, len(stored), err)
	}
	full, err := a.Result().Document()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := doc.AppendJSON(nil), full.AppendJSON(nil); !bytes.Equal(got, want) || !json.Valid(got) {
		t.Errorf("stored result renders %d bytes (valid JSON: %v), the attempt %d", len(got), json.Valid(got), len(want))
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

// BenchmarkStorePut stores results of 220 KB, the size of a bound Pod's at
// 5,000 nodes, for 1,000 Pods in turn: the cost on the binding path.
func BenchmarkStorePut(b *testing.B) {
	store, err := NewStore(b.TempDir(), 512<<20)
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 220<<10)
	for i := range data {
		data[i] = 'a' + byte(i%26)
	}
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		if err := store.Put("default", fmt.Sprintf("web-%d", i%1000), data); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
