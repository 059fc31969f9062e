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

package recorder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

// Test plugins. The in-tree TaintToleration (filter, prescore, score with
// normalization) runs next to them.

// zone rejects the nodes whose zone label is not the Pod's.
type zone struct{}

func (zone) Name() string { return "Zone" }
func (zone) Filter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, n fwk.NodeInfo) *fwk.Status {
	if n.Node().Labels["zone"] != pod.Labels["zone"] {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "zone mismatch")
	}
	return nil
}

// subset narrows the nodes to those of the Pod's "nodes" annotation, when set.
type subset struct{}

func (subset) Name() string                                 { return "Subset" }
func (subset) PreFilterExtensions() fwk.PreFilterExtensions { return nil }
func (subset) PreFilter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	if pod.Annotations["nodes"] == "" {
		return nil, nil
	}
	return &fwk.PreFilterResult{NodeNames: sets.New(splitComma(pod.Annotations["nodes"])...)}, nil
}

// index scores a node by the number in its name, times ten, and
// normalizes by halving.
type index struct{}

func (index) Name() string { return "Index" }
func (index) Score(_ context.Context, _ fwk.CycleState, _ *v1.Pod, n fwk.NodeInfo) (int64, *fwk.Status) {
	var i int64
	_, _ = fmt.Sscanf(n.Node().Name, "n%d", &i)
	return i * 10, nil
}
func (p index) ScoreExtensions() fwk.ScoreExtensions { return p }
func (index) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	for i := range scores {
		scores[i].Score /= 2
	}
	return nil
}

// waiter makes Pods wait at Permit.
type waiter struct{}

func (waiter) Name() string { return "Waiter" }
func (waiter) Permit(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	if pod.Labels["wait"] == "" {
		return nil, 0
	}
	return fwk.NewStatus(fwk.Wait), 10 * time.Second
}

// preempt stands for DefaultPreemption: it filters a changed copy of a
// node on a clone of the state, as preemption's dry run does, then
// nominates that node.
type preempt struct{ fh fwk.Handle }

func (preempt) Name() string { return "Preempt" }
func (p preempt) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, _ fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	ni, err := p.fh.SnapshotSharedLister().NodeInfos().Get("n2")
	if err != nil {
		return nil, fwk.AsStatus(err)
	}
	victimless := ni.Snapshot()
	node := victimless.Node().DeepCopy()
	node.Labels["zone"] = pod.Labels["zone"]
	victimless.SetNode(node)
	if s := p.fh.RunFilterPlugins(ctx, state.Clone(), pod, victimless); !s.IsSuccess() {
		return nil, s
	}
	return &fwk.PostFilterResult{NominatingInfo: &fwk.NominatingInfo{NominatedNodeName: "n2", NominatingMode: fwk.ModeOverride}}, nil
}

// binder binds nothing and says it did.
type binder struct{}

func (binder) Name() string                                                      { return "Binder" }
func (binder) Bind(context.Context, fwk.CycleState, *v1.Pod, string) *fwk.Status { return nil }

type sort_ struct{}

func (sort_) Name() string                                         { return "Sort" }
func (sort_) Less(fwk.QueuedEntityInfo, fwk.QueuedEntityInfo) bool { return false }

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// noNominations is a PodNominator without nominated pods.
type noNominations struct{}

func (noNominations) AddNominatedPod(klog.Logger, fwk.PodInfo, *fwk.NominatingInfo) {}
func (noNominations) DeleteNominatedPodIfExists(*v1.Pod)                            {}
func (noNominations) UpdateNominatedPod(klog.Logger, *v1.Pod, fwk.PodInfo)          {}
func (noNominations) NominatedPodsForNode(string) []fwk.PodInfo                     { return nil }

// chanSink collects finished attempts.
type chanSink chan *Attempt

func (c chanSink) Record(a *Attempt) { c <- a }

type env struct {
	rec   *Recorder
	fw    framework.Framework
	sched *scheduler.Scheduler
	sink  chanSink
	nodes []*v1.Node
	// scores are the framework's own weighted scores of the last
	// scheduling, by node and plugin.
	scores map[string]map[string]int64
}

// newEnv is a profile of the test plugins, and the given extenders.
func newEnv(t *testing.T, extenders ...fwk.Extender) *env {
	t.Helper()
	return newEnvWith(t, envConfig{}, extenders...)
}

// envConfig changes newEnv's profile: the bind plugin (the test's Binder
// if empty), the framework's client, and a Sink around the env's channel.
type envConfig struct {
	bind   string
	client kubernetes.Interface
	sink   func(chanSink) Sink
	events events.EventRecorderLogger
}

func newEnvWith(t *testing.T, cfg envConfig, extenders ...fwk.Extender) *env {
	t.Helper()
	ctx := t.Context()
	metrics.Register() // the framework counts plugin calls
	registry := plugins.NewInTreeRegistry()
	for name, p := range map[string]fwk.Plugin{"Zone": zone{}, "Subset": subset{}, "Index": index{}, "Waiter": waiter{}, "Binder": binder{}, "Sort": sort_{}} {
		if err := registry.Register(name, func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return p, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if err := registry.Register("Preempt", func(_ context.Context, _ runtime.Object, fh fwk.Handle) (fwk.Plugin, error) { return preempt{fh}, nil }); err != nil {
		t.Fatal(err)
	}
	nodes := []*v1.Node{}
	for i := 1; i <= 4; i++ {
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"zone": "a"}}}
		nodes = append(nodes, n)
	}
	nodes[2].Labels["zone"] = "b"
	nodes[3].Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "x", Effect: v1.TaintEffectNoSchedule}}
	snapshot := cache.NewSnapshot(nil, nodes)

	bindPlugin := "Binder"
	if cfg.bind != "" {
		bindPlugin = cfg.bind
	}
	set := func(names ...string) config.PluginSet {
		var ps config.PluginSet
		for _, n := range names {
			ps.Enabled = append(ps.Enabled, config.Plugin{Name: n})
		}
		return ps
	}
	prof := &config.KubeSchedulerProfile{
		SchedulerName: "test-scheduler",
		Plugins: &config.Plugins{
			QueueSort:  set("Sort"),
			PreFilter:  set("Subset"),
			Filter:     set("Zone", names.TaintToleration),
			PostFilter: set("Preempt"),
			PreScore:   set(names.TaintToleration),
			Score:      config.PluginSet{Enabled: []config.Plugin{{Name: "Index", Weight: 3}, {Name: names.TaintToleration, Weight: 2}}},
			Permit:     set("Waiter"),
			Bind:       set(bindPlugin),
		},
	}
	fw, err := frameworkruntime.NewFramework(ctx, registry, prof,
		frameworkruntime.WithClientSet(cfg.client),
		frameworkruntime.WithEventRecorder(cfg.events),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithPodNominator(noNominations{}),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{fw: fw, sink: make(chanSink, 10), nodes: nodes}
	e.sched = &scheduler.Scheduler{
		Profiles:    profile.Map{prof.SchedulerName: fw},
		Extenders:   extenders,
		SchedulePod: e.schedulePod,
		FailureHandler: func(context.Context, framework.Framework, *framework.QueuedPodInfo, *fwk.Status, *fwk.NominatingInfo, time.Time) {
		},
	}
	var sink Sink = e.sink
	if cfg.sink != nil {
		sink = cfg.sink(e.sink)
	}
	if e.rec, err = Instrument(e.sched, sink); err != nil {
		t.Fatal(err)
	}
	// The scheduler runs the profile's framework as Instrument left it.
	e.fw = e.sched.Profiles[prof.SchedulerName]
	return e
}

// schedulePod is the scheduler's algorithm reduced to what the recorder
// sees: PreFilter, Filter on every node PreFilter leaves, Score, the best
// node.
func (e *env) schedulePod(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) (scheduler.ScheduleResult, error) {
	pod := podInfo.Pod
	all, _ := fw.SnapshotSharedLister().NodeInfos().List()
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	pre, s, rejectors := fw.RunPreFilterPlugins(ctx, state, pod)
	if !s.IsSuccess() {
		return scheduler.ScheduleResult{}, s.AsError()
	}
	var feasible []fwk.NodeInfo
	for _, ni := range all {
		if !pre.AllNodes() && !pre.NodeNames.Has(ni.Node().Name) {
			continue
		}
		if s := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni); s.IsSuccess() {
			feasible = append(feasible, ni)
		} else {
			diagnosis.NodeToStatus.Set(ni.Node().Name, s)
		}
	}
	if !pre.AllNodes() {
		diagnosis.NodeToStatus.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(rejectors))))
	}
	for _, ext := range e.sched.Extenders {
		if !ext.IsFilter() || !ext.IsInterested(pod) || len(feasible) == 0 {
			continue
		}
		var failed, unresolvable extenderv1.FailedNodesMap
		var err error
		if feasible, failed, unresolvable, err = ext.Filter(pod, feasible); err != nil {
			return scheduler.ScheduleResult{}, err
		}
		for n, r := range failed {
			diagnosis.NodeToStatus.Set(n, fwk.NewStatus(fwk.Unschedulable, r))
		}
		for n, r := range unresolvable {
			diagnosis.NodeToStatus.Set(n, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, r))
		}
	}
	if len(feasible) == 0 {
		return scheduler.ScheduleResult{}, &framework.FitError{Pod: pod, NumAllNodes: len(all), Diagnosis: diagnosis}
	}
	if s := fw.RunPreScorePlugins(ctx, state, pod, feasible); !s.IsSuccess() {
		return scheduler.ScheduleResult{}, s.AsError()
	}
	scores, s := fw.RunScorePlugins(ctx, state, pod, feasible)
	if !s.IsSuccess() {
		return scheduler.ScheduleResult{}, s.AsError()
	}
	e.scores = map[string]map[string]int64{}
	totals := map[string]int64{}
	for _, ns := range scores {
		e.scores[ns.Name] = map[string]int64{}
		for _, ps := range ns.Scores {
			e.scores[ns.Name][ps.Name] = ps.Score
		}
		totals[ns.Name] = ns.TotalScore
	}
	for _, ext := range e.sched.Extenders {
		if !ext.IsPrioritizer() || !ext.IsInterested(pod) {
			continue
		}
		list, weight, err := ext.Prioritize(pod, feasible)
		if err != nil {
			return scheduler.ScheduleResult{}, err
		}
		for _, hp := range *list {
			final := hp.Score * weight * (fwk.MaxScore / extenderv1.MaxExtenderPriority)
			e.scores[hp.Host][ext.Name()] = final
			totals[hp.Host] += final
		}
	}
	best := scores[0].Name
	for _, ns := range scores {
		if totals[ns.Name] > totals[best] {
			best = ns.Name
		}
	}
	return scheduler.ScheduleResult{SuggestedHost: best, EvaluatedNodes: len(all), FeasibleNodes: len(feasible)}, nil
}

// attempt runs one scheduling attempt of pod as the scheduler's
// schedulingCycle and bindingCycle do, up to the first failure; before
// waiting on Permit it calls whilePermitWaits.
func (e *env) attempt(t *testing.T, pod *v1.Pod, whilePermitWaits func()) *Attempt {
	t.Helper()
	ctx := t.Context()
	state := framework.NewCycleState()
	podInfo, _ := framework.NewPodInfo(pod)
	qpi := &framework.QueuedPodInfo{PodInfo: podInfo}
	fail := func(s *fwk.Status, ni *fwk.NominatingInfo) *Attempt {
		e.sched.FailureHandler(ctx, e.fw, qpi, s, ni, time.Now())
		return <-e.sink
	}
	res, err := e.sched.SchedulePod(ctx, e.fw, state, qpi)
	if err != nil {
		var fitErr *framework.FitError
		if !errors.As(err, &fitErr) {
			return fail(fwk.AsStatus(err), nil)
		}
		pf, _ := e.fw.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatus)
		var ni *fwk.NominatingInfo
		if pf != nil {
			ni = pf.NominatingInfo
		}
		return fail(fwk.NewStatus(fwk.Unschedulable).WithError(err), ni)
	}
	if s := e.fw.RunReservePluginsReserve(ctx, state, pod, res.SuggestedHost); !s.IsSuccess() {
		return fail(s, nil)
	}
	waits, s := e.fw.RunPermitPlugins(ctx, state, pod, res.SuggestedHost)
	if !s.IsSuccess() && !s.IsWait() {
		return fail(s, nil)
	}
	if s.IsWait() {
		e.fw.AddWaitingPod(pod, waits)
	}
	if whilePermitWaits != nil {
		whilePermitWaits()
	}
	if s := e.fw.WaitOnPermit(ctx, pod); !s.IsSuccess() {
		return fail(s, nil)
	}
	if s := e.fw.RunPreBindPlugins(ctx, state, pod, res.SuggestedHost); !s.IsSuccess() {
		return fail(s, nil)
	}
	if s := e.fw.RunBindPlugins(ctx, state, pod, res.SuggestedHost); !s.IsSuccess() {
		return fail(s, nil)
	}
	return <-e.sink
}

func newPod(name string, labels map[string]string, annotations map[string]string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), Labels: labels, Annotations: annotations}}
}

func TestFilterAndWeightedScores(t *testing.T) {
	e := newEnv(t)
	a := e.attempt(t, newPod("web", map[string]string{"zone": "a"}, nil), nil)

	if a.Outcome != Bound {
		t.Fatalf("outcome %s (%s), want %s", a.Outcome, a.Message, Bound)
	}
	taint := "node(s) had untolerated taint(s)"
	wantFilter := map[string]map[string]string{
		"n1": {"Zone": Passed, names.TaintToleration: Passed},
		"n2": {"Zone": Passed, names.TaintToleration: Passed},
		"n3": {"Zone": "zone mismatch"},
		"n4": {"Zone": Passed, names.TaintToleration: taint},
	}
	if d := cmp.Diff(wantFilter, a.FilterResults()); d != "" {
		t.Errorf("filter results (-want +got):\n%s", d)
	}
	wantRaw := map[string]map[string]int64{"n1": {"Index": 10, names.TaintToleration: 0}, "n2": {"Index": 20, names.TaintToleration: 0}}
	if d := cmp.Diff(wantRaw, a.RawScores()); d != "" {
		t.Errorf("raw scores (-want +got):\n%s", d)
	}
	// The recorded final scores are the framework's own weighted ones.
	if d := cmp.Diff(e.scores, a.FinalScores()); d != "" {
		t.Errorf("final scores (-framework +recorded):\n%s", d)
	}
	if got := a.FinalScores()["n2"]["Index"]; got != 30 { // 20 normalized to 10, weight 3
		t.Errorf("n2 Index final score %d, want 30", got)
	}
	checkDocument(t, a)
	res := a.Result()
	if a.SelectedNode != "n2" || res.Summary.TopScores[0].Node != a.SelectedNode {
		t.Errorf("selected %q, top scores %v: the best score is not the selected node", a.SelectedNode, res.Summary.TopScores)
	}
	if d := cmp.Diff(map[string]string{"Binder": Success}, a.Bind); d != "" {
		t.Errorf("bind results (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"Subset": Success}, a.PreFilter); d != "" {
		t.Errorf("prefilter results (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{names.TaintToleration: Success}, a.PreScore); d != "" {
		t.Errorf("prescore results (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"Waiter": Success}, a.Permit); d != "" {
		t.Errorf("permit results (-want +got):\n%s", d)
	}
	wantFailures := []FilterFailure{{Plugin: names.TaintToleration, Reason: taint, Nodes: 1}, {Plugin: "Zone", Reason: "zone mismatch", Nodes: 1}}
	if d := cmp.Diff(wantFailures, res.Summary.FilterFailures); d != "" {
		t.Errorf("filter failures (-want +got):\n%s", d)
	}
	if got, want := res.Summary.Text(), "scheduled to n2 (4/4 nodes evaluated, 2 feasible): top scores n2 "; len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("summary %q, want it to start with %q", got, want)
	}
}

func TestNodeSubsetAndPreemption(t *testing.T) {
	e := newEnv(t)
	// Zone c is nowhere; Subset leaves n1 and n2.
	a := e.attempt(t, newPod("batch", map[string]string{"zone": "c"}, map[string]string{"nodes": "n1,n2"}), nil)

	if a.Outcome != Unschedulable {
		t.Fatalf("outcome %s (%s), want %s", a.Outcome, a.Message, Unschedulable)
	}
	if d := cmp.Diff(map[string][]string{"Subset": {"n1", "n2"}}, a.PreFilterNodes); d != "" {
		t.Errorf("prefilter node subsets (-want +got):\n%s", d)
	}
	// Every node has its reason: n1, n2 from Filter (the preemption's dry
	// run, which passed n2, is not the attempt's filtering), n3, n4 from
	// PreFilter's subset.
	excluded := "node(s) didn't satisfy plugin(s) [Subset]"
	want := map[string]map[string]string{
		"n1": {"Zone": "zone mismatch"},
		"n2": {"Zone": "zone mismatch"},
		"n3": {"PreFilter": excluded},
		"n4": {"PreFilter": excluded},
	}
	if d := cmp.Diff(want, a.FilterResults()); d != "" {
		t.Errorf("filter results (-want +got):\n%s", d)
	}
	if a.NominatedNode != "n2" {
		t.Errorf("nominated node %q, want n2", a.NominatedNode)
	}
	if d := cmp.Diff(map[string]string{"Preempt": Success}, a.PostFilter); d != "" {
		t.Errorf("postfilter results (-want +got):\n%s", d)
	}
	checkDocument(t, a)
	res := a.Result()
	if got, want := fieldJSON(t, res, "postfilter-result"), `{"n2":{"Preempt":"success"}}`; got != want {
		t.Errorf("postfilter-result %s, want %s", got, want)
	}
	wantFilter := `{"n1":{"Zone":"zone mismatch"},"n2":{"Zone":"zone mismatch"},"n3":{"PreFilter":"node(s) didn't satisfy plugin(s) [Subset]"},"n4":{"PreFilter":"node(s) didn't satisfy plugin(s) [Subset]"}}`
	if got := fieldJSON(t, res, "filter-result"); !jsonEqual(t, got, wantFilter) {
		t.Errorf("filter-result %s, want %s", got, wantFilter)
	}
	if got, want := res.Summary.Text(), "0/4 nodes: PreFilter: "+excluded+" (2), Zone: zone mismatch (2); nominated n2 for preemption"; got != want {
		t.Errorf("summary\n%q, want\n%q", got, want)
	}
}

func TestWaitingPermit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		resolve     func(fwk.WaitingPod)
		wantOutcome Outcome
	}{
		{"allowed", func(wp fwk.WaitingPod) { wp.Allow("Waiter") }, Bound},
		{"rejected", func(wp fwk.WaitingPod) { wp.Reject("Waiter", "no quorum") }, Unschedulable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			pod := newPod("gang-"+tc.name, map[string]string{"zone": "a", "wait": "yes"}, nil)
			a := e.attempt(t, pod, func() {
				wp := e.fw.GetWaitingPod(pod.UID)
				if wp == nil {
					t.Fatal("the Pod does not wait at Permit")
				}
				tc.resolve(wp)
			})
			if a.Outcome != tc.wantOutcome {
				t.Fatalf("outcome %s (%s), want %s", a.Outcome, a.Message, tc.wantOutcome)
			}
			if d := cmp.Diff(map[string]string{"Waiter": "Wait"}, a.Permit); d != "" {
				t.Errorf("permit results (-want +got):\n%s", d)
			}
			if d := cmp.Diff(map[string]string{"Waiter": "10s"}, a.PermitTimeout); d != "" {
				t.Errorf("permit timeouts (-want +got):\n%s", d)
			}
			if tc.wantOutcome == Bound && len(a.Bind) != 1 {
				t.Errorf("bind results %v, want the binder's", a.Bind)
			}
			if tc.wantOutcome == Unschedulable {
				if len(a.Bind) != 0 {
					t.Errorf("bind results %v after a rejection", a.Bind)
				}
				if got := a.Result().Summary.Text(); got != "n2 selected, then unschedulable: "+a.Message {
					t.Errorf("summary %q", got)
				}
			}
		})
	}
}

// A finished attempt no longer changes: late calls (an asynchronous
// preemption) do not race with the sink reading it.
func TestFinishedAttemptIsFrozen(t *testing.T) {
	a := NewAttempt(types.NamespacedName{Namespace: "ns", Name: "p"}, "u", "p", 1, NewPlugins([]string{"Zone"}, nil))
	r := &Recorder{sink: make(chanSink, 1), inflight: map[types.UID]*Attempt{}}
	r.finish(a, Bound, "n1", "")
	a.filter("n1", fwk.NewStatus(fwk.Unschedulable, "late").WithPlugin("Zone"))
	a.setStatus(a.Bind, "Binder", nil)
	if f := a.FilterResults(); len(f) != 0 || len(a.Bind) != 0 {
		t.Errorf("a finished attempt changed: filter %v, bind %v", f, a.Bind)
	}
}

func fieldJSON(t *testing.T, res *Result, name string) string {
	t.Helper()
	d, err := res.Document()
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Fields {
		if d.Fields[i].Name == name {
			return string(d.AppendField(nil, &d.Fields[i]))
		}
	}
	t.Fatalf("no field %s", name)
	return ""
}

// checkDocument: the per-node fields of a's Document say what its
// accessors do (FilterResults, RawScores, FinalScores; upstream writes
// scores as strings), through code of their own.
func checkDocument(t *testing.T, a *Attempt) {
	t.Helper()
	res := a.Result()
	asStrings := func(scores map[string]map[string]int64) map[string]map[string]string {
		out := map[string]map[string]string{}
		for node, m := range scores {
			out[node] = map[string]string{}
			for p, s := range m {
				out[node][p] = strconv.FormatInt(s, 10)
			}
		}
		return out
	}
	for name, want := range map[string]any{
		"filter-result":     a.FilterResults(),
		"score-result":      asStrings(a.RawScores()),
		"finalscore-result": asStrings(a.FinalScores()),
	} {
		if got := fieldJSON(t, res, name); !jsonEqual(t, got, mustJSON(t, want)) {
			t.Errorf("%s %s, want %s", name, got, mustJSON(t, want))
		}
	}
}

func jsonEqual(t *testing.T, x, y string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal([]byte(x), &a); err != nil {
		t.Fatalf("%s: %v", x, err)
	}
	if err := json.Unmarshal([]byte(y), &b); err != nil {
		t.Fatal(err)
	}
	return cmp.Equal(a, b)
}

// annotatingSink gives annotations for Bindings, or refuses when it has
// none.
type annotatingSink struct {
	chanSink
	annotations map[string]string
}

func (s annotatingSink) BindingAnnotations(res *Result, pod *v1.Pod) (map[string]string, bool) {
	a := res.a
	if a.Outcome != Bound || a.Bind[defaultbinder.Name] != Success || !a.sealed.Load() {
		panic(fmt.Sprintf("BindingAnnotations of an attempt not sealed as bound: outcome %q, bind %v", a.Outcome, a.Bind))
	}
	return s.annotations, s.annotations != nil
}

// TestAnnotatedBinding: with a sink that gives annotations, the
// DefaultBinder's Binding carries them and the attempt says so; without,
// or when the binding fails, the Binding is the DefaultBinder's own and
// the failure is what the attempt says.
func TestAnnotatedBinding(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		bindErr     error
		want        Outcome
	}{
		{name: "annotated", annotations: map[string]string{"k": "v"}, want: Bound},
		{name: "sink refuses", want: Bound},
		{name: "binding fails", annotations: map[string]string{"k": "v"}, bindErr: apierrors.NewConflict(v1.Resource("pods"), "p", errors.New("changed")), want: Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := newPod("p", map[string]string{"zone": "a"}, nil)
			client := fake.NewClientset(pod)
			var bindings []*v1.Binding
			client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
				if action.GetSubresource() != "binding" {
					return false, nil, nil
				}
				bindings = append(bindings, action.(clienttesting.CreateAction).GetObject().(*v1.Binding))
				return true, nil, tc.bindErr
			})
			e := newEnvWith(t, envConfig{bind: defaultbinder.Name, client: client, sink: func(c chanSink) Sink {
				return annotatingSink{chanSink: c, annotations: tc.annotations}
			}})
			a := e.attempt(t, pod, nil)
			if a.Outcome != tc.want {
				t.Fatalf("outcome %q (%s), want %q", a.Outcome, a.Message, tc.want)
			}
			if len(bindings) == 0 {
				t.Fatal("no Binding was created")
			}
			if diff := cmp.Diff(tc.annotations, bindings[0].Annotations); diff != "" {
				t.Errorf("the Binding's annotations (-want +got):\n%s", diff)
			}
			if b := bindings[0]; b.UID != pod.UID || b.Target.Name != a.SelectedNode || b.Name != pod.Name {
				t.Errorf("Binding %s uid %s to %s, want %s uid %s to the selected %s", b.Name, b.UID, b.Target.Name, pod.Name, pod.UID, a.SelectedNode)
			}
			wantAnnotated := tc.annotations != nil && tc.bindErr == nil
			if a.AnnotatedOnBinding != wantAnnotated {
				t.Errorf("AnnotatedOnBinding = %v, want %v", a.AnnotatedOnBinding, wantAnnotated)
			}
			if tc.bindErr != nil && a.Bind[defaultbinder.Name] == Success {
				t.Errorf("bind-result says %q after the binding failed", Success)
			}
		})
	}
}

// TestScheduledEventSaysWhy: the scheduler's own Scheduled Event of a Pod
// the attempt bound carries why that node (nodes evaluated and feasible,
// top scores), whether its Binding carried the annotations or not; that
// Event only, once; other Events pass unchanged, and nothing is kept.
func TestScheduledEventSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(client kubernetes.Interface) envConfig
	}{
		{name: "annotated Binding", cfg: func(client kubernetes.Interface) envConfig {
			return envConfig{bind: defaultbinder.Name, client: client, sink: func(c chanSink) Sink {
				return annotatingSink{chanSink: c, annotations: map[string]string{"k": "v"}}
			}}
		}},
		{name: "another binder", cfg: func(kubernetes.Interface) envConfig { return envConfig{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := newPod("p", map[string]string{"zone": "a"}, nil)
			recorded := events.NewFakeRecorder(10)
			cfg := tc.cfg(fake.NewClientset(pod))
			cfg.events = recorded
			e := newEnvWith(t, cfg)
			a := e.attempt(t, pod, nil)
			if a.Outcome != Bound {
				t.Fatalf("outcome %q (%s), want %q", a.Outcome, a.Message, Bound)
			}
			if got := a.AnnotatedOnBinding; got != (cfg.bind == defaultbinder.Name) {
				t.Errorf("AnnotatedOnBinding = %v", got)
			}
			// As the scheduler sends them once the binding succeeded.
			er := e.fw.EventRecorder().WithLogger(klog.Background())
			for range 2 {
				er.Eventf(pod, nil, v1.EventTypeNormal, ScheduledReason, "Binding", "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, a.SelectedNode)
			}
			er.Eventf(pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", "%s", "other")
			var got []string
			for len(recorded.Events) > 0 {
				got = append(got, <-recorded.Events)
			}
			plain := "Normal Scheduled Successfully assigned ns/p to " + a.SelectedNode
			want := []string{plain + " (4/4 nodes evaluated, 2 feasible): top scores " + a.Result().Summary.TopScores[0].Node, plain, "Warning FailedScheduling other"}
			if len(got) != 3 || !strings.HasPrefix(got[0], want[0]) || got[1] != want[1] || got[2] != want[2] {
				t.Errorf("Events:\n%s\nwant (the first a prefix):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if n := len(e.rec.bound); n != 0 {
				t.Errorf("%d summaries kept after their Events", n)
			}
		})
	}
}

// TestFilterFindsNodesByNodeInfo: a node the scheduler filters with its
// NodeInfo of the snapshot's list is recorded in its row, found by that
// NodeInfo even where its name would not find it; any other NodeInfo (a
// copy, as preemption filters with, or a node the list does not hold) is
// found by its name.
func TestFilterFindsNodesByNodeInfo(t *testing.T) {
	info := func(name string) *framework.NodeInfo {
		ni := framework.NewNodeInfo()
		ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
		return ni
	}
	list := []fwk.NodeInfo{info("n1"), info("n2"), info("n3")}
	a := NewAttempt(types.NamespacedName{Namespace: "ns", Name: "p"}, "u", "p", len(list), NewPlugins([]string{"Zone"}, nil))
	a.nodes = newNodeIndex(list)
	a.rows = getRows(len(list))
	// Only the NodeInfo can find n2 now.
	delete(a.nodes.index, "n2")
	a.filterInfo(list[1], fwk.NewStatus(fwk.Unschedulable, "zone mismatch").WithPlugin("Zone"))
	a.filterInfo(list[0].Snapshot(), nil)
	a.filterInfo(info("n4"), nil)
	if got := a.rows[1].state; got != rowRejected {
		t.Errorf("n2's row is %d, want rejected (%d)", got, rowRejected)
	}
	if got := a.rows[0].state; got != rowPassed {
		t.Errorf("n1's row, filtered with a copy of its NodeInfo, is %d, want passed (%d)", got, rowPassed)
	}
	if d := cmp.Diff([]string{"n4"}, a.extraNames); d != "" {
		t.Errorf("nodes outside the list (-want +got):\n%s", d)
	}
	a.mu.Lock()
	a.sealLocked()
	a.mu.Unlock()
	want := map[string]map[string]string{"n1": {"Zone": Passed}, "n2": {"Zone": "zone mismatch"}, "n4": {"Zone": Passed}}
	if d := cmp.Diff(want, a.FilterResults()); d != "" {
		t.Errorf("filter results (-want +got):\n%s", d)
	}
}
