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
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/worker"
	"sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned/fake"
	simlisters "sigs.k8s.io/simulator-apiserver/pkg/generated/listers/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

// fakeRunner plays the simulator servers of a scenario's simulators.
type fakeRunner struct {
	mu      sync.Mutex
	configs map[string]string
	runs    map[string]*contract.ScenarioRun
	reports map[string]*contract.ScenarioReport
	groups  map[string]map[string]map[string]int32
	deleted map[string]bool
	// imports are the documents each simulator was sent, exports what
	// each answers, importPhase what GET import answers.
	imports     map[string]string
	exports     map[string]string
	importPhase map[string]string
}

func newFakeRunner() *fakeRunner {
	return &fakeRunner{configs: map[string]string{}, runs: map[string]*contract.ScenarioRun{},
		reports: map[string]*contract.ScenarioReport{}, groups: map[string]map[string]map[string]int32{}, deleted: map[string]bool{},
		imports: map[string]string{}, exports: map[string]string{}, importPhase: map[string]string{}}
}

func (f *fakeRunner) Call(_ context.Context, t inner.Target, method, path string, body []byte, want int, _ int64) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	answer := func(code int, v any) ([]byte, error) {
		if code != want {
			return nil, &inner.CallError{Method: method, Path: path, Code: code}
		}
		return json.Marshal(v)
	}
	switch method + " " + path {
	case "PUT " + contract.PathSchedulerConfig:
		f.configs[t.Name] = string(body)
		return answer(http.StatusOK, map[string]any{})
	case "POST " + contract.PathScenario:
		run := &contract.ScenarioRun{}
		if err := json.Unmarshal(body, run); err != nil {
			return nil, err
		}
		f.runs[t.Name] = run
		f.reports[t.Name] = &contract.ScenarioReport{Phase: contract.ScenarioRunWaiting, RunID: run.RunID}
		return answer(http.StatusAccepted, nil)
	case "GET " + contract.PathScenario:
		if r := f.reports[t.Name]; r != nil {
			return answer(http.StatusOK, r)
		}
		return answer(http.StatusNotFound, nil)
	case "DELETE " + contract.PathScenario:
		f.deleted[t.Name] = true
		return answer(http.StatusOK, nil)
	case "GET " + contract.PathExport:
		if doc, ok := f.exports[t.Name]; ok && want == http.StatusOK {
			return []byte(doc), nil
		}
		return answer(http.StatusNotFound, nil)
	case "GET " + contract.PathImport:
		return answer(http.StatusOK, contract.ImportStatus{Phase: f.importPhase[t.Name]})
	case "POST " + contract.PathImport:
		if f.importPhase[t.Name] == contract.ImportImporting {
			return answer(http.StatusConflict, nil)
		}
		f.imports[t.Name] = string(body)
		f.importPhase[t.Name] = contract.ImportImporting
		return answer(http.StatusAccepted, contract.ImportStatus{Phase: contract.ImportImporting})
	case "GET " + contract.PathScenarioPlacements:
		return answer(http.StatusOK, &contract.ScenarioPlacements{RunID: f.runs[t.Name].RunID, Groups: f.groups[t.Name]})
	}
	return nil, fmt.Errorf("unexpected %s %s", method, path)
}

func (f *fakeRunner) report(sim string, r contract.ScenarioReport, groups map[string]map[string]int32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r.RunID = f.runs[sim].RunID
	f.reports[sim] = &r
	f.groups[sim] = groups
}

// harness runs the reconciler's sync on a fake clientset, its listers
// refreshed from the clientset before each sync.
type harness struct {
	t                 *testing.T
	client            *fake.Clientset
	c                 *Controller
	runner            *fakeRunner
	events            *record.FakeRecorder
	scns, sims, pools cache.Indexer
}

func newHarness(t *testing.T, objs ...runtime.Object) *harness {
	h := &harness{t: t, client: fake.NewSimpleClientset(objs...), runner: newFakeRunner(), events: record.NewFakeRecorder(10)}
	idx := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	h.scns, h.sims, h.pools = idx(), idx(), idx()
	h.c = &Controller{
		sims:       h.client,
		scenarios:  simlisters.NewScenarioLister(h.scns),
		simulators: simlisters.NewSimulatorLister(h.sims),
		pools:      simlisters.NewNodePoolLister(h.pools),
		configMaps: fakeConfigMaps(),
		runners:    h.runner,
		recorder:   h.events,
		queue:      worker.NewQueue("scenario-test"),
		now:        time.Now,
		workloads:  map[types.UID]*workload{},
		gone:       map[string]*v1alpha1.Scenario{},
	}
	t.Cleanup(h.c.queue.ShutDown)
	return h
}

func (h *harness) refresh() {
	h.t.Helper()
	ctx := h.t.Context()
	scns, err := h.client.SimV1alpha1().Scenarios("").List(ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	sims, err := h.client.SimV1alpha1().Simulators("").List(ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	pools, err := h.client.SimV1alpha1().NodePools("").List(ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	replace := func(idx cache.Indexer, items []any) {
		if err := idx.Replace(items, ""); err != nil {
			h.t.Fatal(err)
		}
	}
	var a, b, c []any
	for i := range scns.Items {
		a = append(a, &scns.Items[i])
	}
	for i := range sims.Items {
		b = append(b, &sims.Items[i])
	}
	for i := range pools.Items {
		c = append(c, &pools.Items[i])
	}
	replace(h.scns, a)
	replace(h.sims, b)
	replace(h.pools, c)
}

// sync refreshes the listers, syncs the scenario and returns it.
func (h *harness) sync(namespace, name string) *v1alpha1.Scenario {
	h.t.Helper()
	h.refresh()
	if _, err := h.c.sync(h.t.Context(), namespace+"/"+name); err != nil {
		h.t.Fatal(err)
	}
	scn, err := h.client.SimV1alpha1().Scenarios(namespace).Get(h.t.Context(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return scn
}

func binpack() *v1alpha1.Scenario {
	return &v1alpha1.Scenario{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "bp", UID: "scn-uid", Generation: 1},
		Spec: v1alpha1.ScenarioSpec{
			Variants: []v1alpha1.ScenarioVariant{
				{Name: "least", SchedulerConfiguration: &runtime.RawExtension{Raw: []byte(`{"kind":"KubeSchedulerConfiguration","apiVersion":"kubescheduler.config.k8s.io/v1"}`)}},
				{Name: "most"},
			},
			NodePools: []v1alpha1.ScenarioNodePool{{Name: "small", Replicas: ptr.To[int32](2)}},
			Timeline: []v1alpha1.ScenarioStep{
				{At: metav1.Duration{Duration: time.Second}, Scale: &v1alpha1.ScenarioScale{Kind: v1alpha1.ScaleNodePool, Name: "small", Replicas: 3}},
			},
		},
	}
}

// TestScenarioLifecycle drives a scenario of two variants and the noise
// floor from creation to comparison, then deletes it.
func TestScenarioLifecycle(t *testing.T) {
	h := newHarness(t, binpack())
	ctx := t.Context()

	scn := h.sync("team", "bp")
	sims, _ := h.client.SimV1alpha1().Simulators("team").List(ctx, metav1.ListOptions{})
	if len(sims.Items) != 3 {
		t.Fatalf("%d simulators, want bp-least, bp-most and bp-least-again", len(sims.Items))
	}
	for _, s := range sims.Items {
		if !metav1.IsControlledBy(&s, scn) || s.Labels[LabelScenario] != "bp" {
			t.Errorf("simulator %s is not the scenario's: %v %v", s.Name, s.OwnerReferences, s.Labels)
		}
	}
	pools, _ := h.client.SimV1alpha1().NodePools("team").List(ctx, metav1.ListOptions{})
	if len(pools.Items) != 3 {
		t.Fatalf("%d NodePools, want one per simulator", len(pools.Items))
	}
	if scn.Status.Phase != v1alpha1.ScenarioPending || !meta.IsStatusConditionFalse(scn.Status.Conditions, ConditionReady) {
		t.Fatalf("before the simulators are Available: %+v", scn.Status)
	}

	// The simulators become Available and the pools Ready.
	for _, s := range sims.Items {
		s.Status.Phase = v1alpha1.SimulatorAvailable
		if _, err := h.client.SimV1alpha1().Simulators("team").UpdateStatus(ctx, &s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pools.Items {
		p.Status.ReadyReplicas = 2
		if _, err := h.client.SimV1alpha1().NodePools("team").UpdateStatus(ctx, &p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	scn = h.sync("team", "bp")
	if scn.Status.Phase != v1alpha1.ScenarioRunning || scn.Status.StartTime == nil {
		t.Fatalf("once all are Available: %+v", scn.Status)
	}
	if len(h.runner.configs) != 2 || h.runner.configs["bp-least"] == "" || h.runner.configs["bp-least-again"] == "" {
		t.Errorf("scheduler configurations set: %v, want bp-least's in bp-least and bp-least-again", h.runner.configs)
	}

	// The runs go out, all with the recorded start.
	scn = h.sync("team", "bp")
	if len(h.runner.runs) != 3 {
		t.Fatalf("%d runs sent, want 3", len(h.runner.runs))
	}
	for name, run := range h.runner.runs {
		if !run.StartTime.Equal(scn.Status.StartTime.Time) || run.RunID != "scn-uid" {
			t.Errorf("run of %s starts %v (id %s), want %v", name, run.StartTime, run.RunID, scn.Status.StartTime)
		}
		if s := run.Steps[0].Scale; s.Name != name+"-small" {
			t.Errorf("run of %s scales %s", name, s.Name)
		}
	}

	// A runner waits for its pool: the reconciler scales it.
	h.runner.report("bp-most", contract.ScenarioReport{Phase: contract.ScenarioRunRunning, ElapsedMilliseconds: 30_500,
		Waiting: &contract.ScenarioRunScale{Kind: contract.ScaleKindNodePool, Name: "bp-most-small", Replicas: 3}}, nil)
	scn = h.sync("team", "bp")
	pool, _ := h.client.SimV1alpha1().NodePools("team").Get(ctx, "bp-most-small", metav1.GetOptions{})
	if ptr.Deref(pool.Spec.Replicas, 0) != 3 {
		t.Errorf("bp-most-small has %d replicas, want 3", ptr.Deref(pool.Spec.Replicas, 0))
	}
	if scn.Status.Progress != 0 || scn.Status.Phase != v1alpha1.ScenarioRunning {
		t.Errorf("while two runners wait: progress %d, phase %s", scn.Status.Progress, scn.Status.Phase)
	}

	// All end: the comparison.
	h.runner.report("bp-least", contract.ScenarioReport{Phase: contract.ScenarioRunSucceeded, PodsScheduled: 4, NodesUsed: 2},
		map[string]map[string]int32{"default/web-*": {"bp-least-small-0": 2, "bp-least-small-1": 2}})
	h.runner.report("bp-least-again", contract.ScenarioReport{Phase: contract.ScenarioRunSucceeded, PodsScheduled: 4, NodesUsed: 2},
		map[string]map[string]int32{"default/web-*": {"bp-least-again-small-0": 1, "bp-least-again-small-1": 3}})
	h.runner.report("bp-most", contract.ScenarioReport{Phase: contract.ScenarioRunSucceeded, PodsScheduled: 3, NodesUsed: 1, PodsUnschedulable: 1},
		map[string]map[string]int32{"default/web-*": {"bp-most-small-0": 3}})
	scn = h.sync("team", "bp")
	if scn.Status.Phase != v1alpha1.ScenarioSucceeded || scn.Status.CompletionTime == nil || scn.Status.Progress != 100 {
		t.Fatalf("after every run ended: %+v", scn.Status)
	}
	want := []v1alpha1.ScenarioComparison{
		{Variant: "most", Baseline: "least", PlacedDifferently: 1, ScheduledOnlyInBaseline: 1, NodesUsedDelta: -1},
		{Variant: "least-again", Baseline: "least", NoiseFloor: true, PlacedDifferently: 1},
	}
	if len(scn.Status.Comparisons) != len(want) {
		t.Fatalf("comparisons = %+v", scn.Status.Comparisons)
	}
	for i := range want {
		if scn.Status.Comparisons[i] != want[i] {
			t.Errorf("comparison %d = %+v, want %+v", i, scn.Status.Comparisons[i], want[i])
		}
	}
	select {
	case e := <-h.events.Events:
		for _, want := range []string{"Compared", "most: 3 Pods scheduled, 1 unschedulable, 1 Nodes used", "most vs least: 1 Pods placed differently", "Noise floor: two runs of least placed 1 Pods differently"} {
			if !strings.Contains(e, want) {
				t.Errorf("event %q lacks %q", e, want)
			}
		}
	default:
		t.Error("no event with the comparison")
	}
	if v := findVariant(scn.Status.Variants, "most"); v == nil || v.PodsUnschedulable != 1 || v.NodesUsed != 1 || v.SimulatorName != "bp-most" {
		t.Errorf("variant most: %+v", v)
	}

	// Deleted: its simulators and pools go.
	h.refresh()
	last := scn.DeepCopy()
	if err := h.client.SimV1alpha1().Scenarios("team").Delete(ctx, "bp", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.c.deleted(last)
	if scn := h.sync("team", "bp"); scn != nil {
		t.Fatal("the scenario is still there")
	}
	sims, _ = h.client.SimV1alpha1().Simulators("team").List(ctx, metav1.ListOptions{})
	pools, _ = h.client.SimV1alpha1().NodePools("team").List(ctx, metav1.ListOptions{})
	if len(sims.Items) != 0 || len(pools.Items) != 0 {
		t.Errorf("after the scenario's deletion: %d simulators, %d NodePools left", len(sims.Items), len(pools.Items))
	}
}

// TestScenarioNameTaken: a simulator of the variant's name that is not the
// scenario's is never used nor deleted.
func TestScenarioNameTaken(t *testing.T) {
	other := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "bp-most", UID: "other"}}
	h := newHarness(t, binpack(), other)
	scn := h.sync("team", "bp")
	if scn.Status.Phase != v1alpha1.ScenarioFailed || !meta.IsStatusConditionTrue(scn.Status.Conditions, ConditionComplete) {
		t.Fatalf("status = %+v", scn.Status)
	}
	c := meta.FindStatusCondition(scn.Status.Conditions, ConditionComplete)
	if c.Reason != "SimulatorConflict" {
		t.Errorf("reason %s: %s", c.Reason, c.Message)
	}
	if err := h.client.SimV1alpha1().Scenarios("team").Delete(t.Context(), "bp", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.sync("team", "bp")
	if _, err := h.client.SimV1alpha1().Simulators("team").Get(t.Context(), "bp-most", metav1.GetOptions{}); err != nil {
		t.Errorf("the other simulator after the scenario's deletion: %v", err)
	}
}

// TestScenarioStopsRunsInSimulatorsItDidNotMake: a deleted scenario over
// existing simulators stops its run there and deletes nothing.
func TestScenarioStopsRunsInSimulatorsItDidNotMake(t *testing.T) {
	existing := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "mine", UID: "mine-uid"},
		Status: v1alpha1.SimulatorStatus{Phase: v1alpha1.SimulatorAvailable}}
	scn := &v1alpha1.Scenario{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "s", UID: "s-uid"},
		Spec: v1alpha1.ScenarioSpec{Simulators: []string{"mine"}, Duration: &metav1.Duration{Duration: time.Minute}}}
	h := newHarness(t, scn, existing)
	h.sync("team", "s")
	got := h.sync("team", "s")
	if got.Status.Phase != v1alpha1.ScenarioRunning || h.runner.runs["mine"] == nil {
		t.Fatalf("phase %s, run %v", got.Status.Phase, h.runner.runs["mine"])
	}
	if err := h.client.SimV1alpha1().Scenarios("team").Delete(t.Context(), "s", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.c.deleted(got)
	h.sync("team", "s")
	if !h.runner.deleted["mine"] {
		t.Error("the run in simulator mine was not stopped")
	}
	if _, err := h.client.SimV1alpha1().Simulators("team").Get(t.Context(), "mine", metav1.GetOptions{}); err != nil {
		t.Errorf("simulator mine: %v", err)
	}
}

// TestScenarioCopiesInitialSimulator: with spec.initial.simulatorName,
// every simulator imports that simulator's export once, and the run starts
// only when every import has succeeded.
func TestScenarioCopiesInitialSimulator(t *testing.T) {
	available := v1alpha1.SimulatorStatus{Phase: v1alpha1.SimulatorAvailable}
	seed := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "seed", UID: "seed-uid"}}
	a := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "a", UID: "a-uid"}, Status: available}
	b := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "b", UID: "b-uid"}, Status: available}
	scn := &v1alpha1.Scenario{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "s", UID: "s-uid"},
		Spec: v1alpha1.ScenarioSpec{Simulators: []string{"a", "b"}, Initial: &v1alpha1.ScenarioInitial{SimulatorName: "seed"},
			Duration: &metav1.Duration{Duration: time.Minute}}}
	h := newHarness(t, scn, seed, a, b)
	h.runner.exports["seed"] = `{"nodes":[{"metadata":{"name":"n1"}}]}`

	waitingFor := func(got *v1alpha1.Scenario, want string) {
		t.Helper()
		c := meta.FindStatusCondition(got.Status.Conditions, ConditionReady)
		if got.Status.StartTime != nil || c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, want) {
			t.Fatalf("want a scenario that waits for %q, got start %v, condition %+v", want, got.Status.StartTime, c)
		}
	}
	waitingFor(h.sync("team", "s"), "simulator seed (spec.initial.simulatorName) is Pending")
	if len(h.runner.imports) != 0 {
		t.Fatalf("imported before the seed was Available: %v", h.runner.imports)
	}

	seed.Status = available
	if _, err := h.client.SimV1alpha1().Simulators("team").UpdateStatus(t.Context(), seed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitingFor(h.sync("team", "s"), "simulator a is importing simulator seed")
	for _, name := range []string{"a", "b"} {
		if h.runner.imports[name] != h.runner.exports["seed"] {
			t.Errorf("simulator %s was sent %q, want the seed's export", name, h.runner.imports[name])
		}
	}
	// Still importing: nothing is sent twice.
	h.runner.imports = map[string]string{}
	waitingFor(h.sync("team", "s"), "simulator b is importing simulator seed")
	if len(h.runner.imports) != 0 {
		t.Errorf("sent again while importing: %v", h.runner.imports)
	}

	h.runner.importPhase["a"], h.runner.importPhase["b"] = contract.ImportSucceeded, contract.ImportSucceeded
	if got := h.sync("team", "s"); got.Status.StartTime == nil || got.Status.Phase != v1alpha1.ScenarioRunning {
		t.Fatalf("after both imports: phase %s, start %v", got.Status.Phase, got.Status.StartTime)
	}
}

// TestScenarioInitialImportFails: a failed import fails the scenario and
// says why.
func TestScenarioInitialImportFails(t *testing.T) {
	available := v1alpha1.SimulatorStatus{Phase: v1alpha1.SimulatorAvailable}
	a := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "a", UID: "a-uid"}, Status: available}
	scn := &v1alpha1.Scenario{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "s", UID: "s-uid"},
		Spec: v1alpha1.ScenarioSpec{Simulators: []string{"a"}, Initial: &v1alpha1.ScenarioInitial{SimulatorName: "gone"}}}
	h := newHarness(t, scn, a)
	got := h.sync("team", "s")
	c := meta.FindStatusCondition(got.Status.Conditions, ConditionComplete)
	if got.Status.Phase != v1alpha1.ScenarioFailed || c == nil || !strings.Contains(c.Message, "simulator gone (spec.initial.simulatorName) does not exist") {
		t.Fatalf("phase %s, condition %+v", got.Status.Phase, c)
	}
}
