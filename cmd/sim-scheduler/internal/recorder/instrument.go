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
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
)

// ScheduledReason is the reason of the Event the scheduler sends when it
// has bound a Pod.
const ScheduledReason = "Scheduled"

// Sink receives finished attempts. Record must not block: it runs on the
// scheduler's own goroutines.
type Sink interface {
	Record(*Attempt)
}

// BindingAnnotator is a Sink that can give an attempt's annotations before
// its Pod is bound, so that they ride on the Binding (the API server copies
// a Binding's annotations onto the Pod): one write of the Pod instead of
// a binding and then a patch, the larger part of what publishing a result
// costs the control plane. It runs on the binding goroutine.
type BindingAnnotator interface {
	// BindingAnnotations returns the annotations of res, the result of
	// an attempt sealed and about to be bound, for pod's Binding; false
	// when they cannot ride on it (a Binding can add or replace
	// annotations, not remove them).
	BindingAnnotations(res *Result, pod *v1.Pod) (map[string]string, bool)
}

// Recorder ties attempts to the scheduler: it opens one when the scheduler
// starts a scheduling cycle and hands it to its Sink when the Pod is bound
// or the attempt fails.
type Recorder struct {
	sink     Sink
	profiles map[string]*Plugins

	mu       sync.Mutex
	inflight map[types.UID]*Attempt
	// nodes indexes the snapshot's node list at nodesData.
	nodes     *nodeIndex
	nodesData *fwk.NodeInfo
	// bound holds, by Pod UID, the summary of the attempt that just bound
	// the Pod until the scheduler's Scheduled Event of it takes it (see
	// scheduledEvents): the scheduler sends that Event right after a
	// successful bind, from the same goroutine.
	bound map[types.UID]*Summary
}

// Instrument makes every profile of sched record its attempts into sink.
// It must run before the scheduler does.
func Instrument(sched *scheduler.Scheduler, sink Sink) (*Recorder, error) {
	r := &Recorder{sink: sink, profiles: map[string]*Plugins{}, inflight: map[types.UID]*Attempt{}, bound: map[types.UID]*Summary{}}
	for name, fw := range sched.Profiles {
		info, err := r.wrapFramework(fw)
		if err != nil {
			return nil, fmt.Errorf("profile %q: %w", name, err)
		}
		r.profiles[name] = info
		sched.Profiles[name] = &recordingFramework{fw, r}
	}
	for i, e := range sched.Extenders {
		sched.Extenders[i] = &extender{Extender: e, r: r}
	}
	schedulePod := sched.SchedulePod
	sched.SchedulePod = func(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) (scheduler.ScheduleResult, error) {
		a := r.begin(fw, state, podInfo)
		res, err := schedulePod(ctx, fw, state, podInfo)
		r.scheduled(a, state, res, err)
		return res, err
	}
	failureHandler := sched.FailureHandler
	sched.FailureHandler = func(ctx context.Context, fw framework.Framework, podInfo *framework.QueuedPodInfo, status *fwk.Status, nominatingInfo *fwk.NominatingInfo, start time.Time) {
		failureHandler(ctx, fw, podInfo, status, nominatingInfo, start)
		r.failed(fw, podInfo, status, nominatingInfo)
	}
	return r, nil
}

// wrapFramework puts a recording wrapper around every plugin of every
// extension point of fw. The framework has no hook for this, so the
// wrappers replace the plugins in its per-extension-point lists, as the
// framework itself does for its metrics. Which extension points a plugin
// takes part in (multi-point expansion, enqueue extensions, signatures) was
// decided from the plugins themselves when the framework was built, so the
// scheduler behaves as the stock one. A framework of another shape is an
// error, never a silent scheduler without results.
func (r *Recorder) wrapFramework(f framework.Framework) (*Plugins, error) {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("unexpected framework type %T", f)
	}
	v = v.Elem()
	info := &Plugins{}
	var errs []error
	collect := func(err error) { errs = append(errs, err) }

	weights, err := field[map[string]int](v, "scorePluginWeight")
	if err != nil {
		return nil, err
	}
	collect(wrap(v, "preFilterPlugins", func(p fwk.PreFilterPlugin) fwk.PreFilterPlugin { return preFilter{p} }))
	// Filter and Score are recorded per node by recordingFramework, once
	// per node rather than once per plugin and node: here only their order.
	collect(wrap(v, "filterPlugins", func(p fwk.FilterPlugin) fwk.FilterPlugin {
		info.Filter = append(info.Filter, p.Name())
		return p
	}))
	collect(wrap(v, "postFilterPlugins", func(p fwk.PostFilterPlugin) fwk.PostFilterPlugin {
		if dp, ok := p.(*defaultpreemption.DefaultPreemption); ok && dp.Evaluator != nil {
			dp.Evaluator.Interface = victimSelector{dp.Evaluator.Interface}
		}
		return postFilter{p}
	}))
	collect(wrap(v, "preScorePlugins", func(p fwk.PreScorePlugin) fwk.PreScorePlugin { return preScore{p} }))
	collect(wrap(v, "scorePlugins", func(p fwk.ScorePlugin) fwk.ScorePlugin {
		info.Score = append(info.Score, p.Name())
		info.Weights = append(info.Weights, int64((*weights)[p.Name()]))
		return p
	}))
	collect(wrap(v, "reservePlugins", func(p fwk.ReservePlugin) fwk.ReservePlugin { return reserve{p} }))
	collect(wrap(v, "permitPlugins", func(p fwk.PermitPlugin) fwk.PermitPlugin { return permit{p} }))
	collect(wrap(v, "preBindPlugins", func(p fwk.PreBindPlugin) fwk.PreBindPlugin { return preBind{p} }))
	collect(wrap(v, "bindPlugins", func(p fwk.BindPlugin) fwk.BindPlugin { return bind{p, r, f} }))
	return info, errors.Join(errs...)
}

// field is a pointer to the unexported field name of struct v, when it has
// type T.
func field[T any](v reflect.Value, name string) (*T, error) {
	f := v.FieldByName(name)
	if !f.IsValid() {
		return nil, fmt.Errorf("framework has no field %s", name)
	}
	p, ok := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Interface().(*T)
	if !ok {
		return nil, fmt.Errorf("framework field %s is a %s, not a %T", name, f.Type(), *new(T))
	}
	return p, nil
}

func wrap[T any](v reflect.Value, name string, w func(T) T) error {
	s, err := field[[]T](v, name)
	if err != nil {
		return err
	}
	for i := range *s {
		(*s)[i] = w((*s)[i])
	}
	return nil
}

// indexFor is the node index of a snapshot's node list. The snapshot
// keeps its list until nodes come or go, then makes a new one: the index
// follows the list's identity and is rebuilt only then.
func (r *Recorder) indexFor(list []fwk.NodeInfo) *nodeIndex {
	r.mu.Lock()
	defer r.mu.Unlock()
	data := unsafe.SliceData(list)
	if r.nodes == nil || r.nodesData != data || len(r.nodes.names) != len(list) {
		r.nodes, r.nodesData = newNodeIndex(list), data
	}
	return r.nodes
}

// begin opens the attempt of a scheduling cycle.
func (r *Recorder) begin(fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) *Attempt {
	pod := podInfo.Pod
	var list []fwk.NodeInfo
	if l := fw.SnapshotSharedLister(); l != nil {
		list, _ = l.NodeInfos().List()
	}
	a := NewAttempt(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, pod.UID, fw.ProfileName(), len(list), r.profiles[fw.ProfileName()])
	a.nodes = r.indexFor(list)
	a.rows = getRows(len(a.nodes.names))
	state.Write(stateKey, &attemptRef{a})
	r.mu.Lock()
	r.inflight[pod.UID] = a
	r.mu.Unlock()
	return a
}

// scheduled records what the scheduling algorithm chose, which filter
// plugins PreFilter skipped, and, when no node fits, the reason of every
// node that no filter plugin ran on (a PreFilter rejected the Pod, or
// narrowed the nodes).
func (r *Recorder) scheduled(a *Attempt, state fwk.CycleState, res scheduler.ScheduleResult, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done.Load() {
		return
	}
	a.SelectedNode = res.SuggestedHost
	a.EvaluatedNodes, a.FeasibleNodes = res.EvaluatedNodes, res.FeasibleNodes
	// The scheduler keeps its score list, extenders' scores appended, as
	// OpportunisticBatching's heap of hints, which the next cycles reorder
	// in place while this attempt may still be binding: copy it now, the
	// last moment it is this attempt's. Only the elements move; their
	// score slices are never written again.
	a.scored = slices.Clone(a.scored)
	if skip := state.GetSkipFilterPlugins(); len(skip) > 0 {
		for k, p := range a.plugins.Filter {
			if k < maxSkippable && skip.Has(p) {
				a.skipFilter |= 1 << k
			}
		}
	}
	var fitErr *framework.FitError
	if !errors.As(err, &fitErr) || fitErr.Diagnosis.NodeToStatus == nil {
		return
	}
	for i, name := range a.nodes.names {
		if a.rows[i].state != rowNone {
			continue
		}
		if s := fitErr.Diagnosis.NodeToStatus.Get(name); !s.IsSuccess() {
			a.rows[i] = row{status: s, state: rowRejected}
		}
	}
}

func (r *Recorder) failed(fw framework.Framework, podInfo *framework.QueuedPodInfo, status *fwk.Status, nominatingInfo *fwk.NominatingInfo) {
	pod := podInfo.Pod
	a := r.inflightAttempt(pod.UID)
	if a == nil {
		// The scheduler failed the Pod before scheduling it (e.g. while
		// assuming it): an attempt without plugin results.
		a = NewAttempt(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, pod.UID, fw.ProfileName(), 0, r.profiles[fw.ProfileName()])
	}
	outcome := Failed
	if status.IsRejected() {
		outcome = Unschedulable
	}
	a.mu.Lock()
	if nominatingInfo != nil && nominatingInfo.NominatedNodeName != "" {
		a.NominatedNode = nominatingInfo.NominatedNodeName
	}
	a.mu.Unlock()
	r.finish(a, outcome, "", status.Message())
}

func (r *Recorder) inflightAttempt(uid types.UID) *Attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inflight[uid]
}

// bindingAnnotations seals a for binding pod to node with the bind
// plugin, as if it succeeds, and returns its result and the annotations
// its Binding carries; false when the sink gives none. If the binding
// fails, the failure finishes the attempt as usual and overwrites what was
// assumed.
func (r *Recorder) bindingAnnotations(a *Attempt, pod *v1.Pod, node, plugin string) (map[string]string, *Result, bool) {
	annotator, ok := r.sink.(BindingAnnotator)
	if !ok {
		return nil, nil, false
	}
	a.mu.Lock()
	if a.done.Load() {
		a.mu.Unlock()
		return nil, nil, false
	}
	a.sealLocked()
	a.Outcome, a.SelectedNode = Bound, node
	a.Bind[plugin] = Success
	// Until the binding was sent: the annotations cannot wait for it.
	a.Duration = time.Since(a.Start)
	a.mu.Unlock()
	res := a.Result()
	ann, ok := annotator.BindingAnnotations(res, pod)
	return ann, res, ok
}

// boundBy notes the summary of the attempt that bound the Pod uid, for
// the scheduler's Scheduled Event of it.
func (r *Recorder) boundBy(uid types.UID, s *Summary) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bound[uid] = s
}

// takeBound returns and forgets the summary of the attempt that bound the
// Pod uid.
func (r *Recorder) takeBound(uid types.UID) *Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.bound[uid]
	delete(r.bound, uid)
	return s
}

// finish ends the attempt once and hands it to the sink.
func (r *Recorder) finish(a *Attempt, outcome Outcome, node, message string) {
	a.mu.Lock()
	if a.done.Load() {
		a.mu.Unlock()
		return
	}
	a.done.Store(true)
	a.sealLocked()
	a.Outcome, a.Message = outcome, message
	if node != "" {
		a.SelectedNode = node
	}
	if !a.AnnotatedOnBinding || outcome != Bound {
		a.Duration = time.Since(a.Start)
	}
	a.mu.Unlock()

	r.mu.Lock()
	if r.inflight[a.UID] == a {
		delete(r.inflight, a.UID)
	}
	// A summary still waiting for a Scheduled Event that never came
	// (none does for a Pod bound by an extender) goes with the Pod's next
	// attempt.
	delete(r.bound, a.UID)
	r.mu.Unlock()
	r.sink.Record(a)
}

// recordingFramework is a profile's framework that records what its
// filter plugins say of each node and what its score plugins give, at the
// two calls the scheduler makes for them. Plugins themselves (preemption's
// dry runs) call the framework underneath, which records nothing.
type recordingFramework struct {
	framework.Framework
	r *Recorder
}

// EventRecorder is the framework's, but the scheduler's Scheduled Event of
// a Pod carries why its node was chosen (see scheduledEvents).
func (f *recordingFramework) EventRecorder() events.EventRecorderLogger {
	er := f.Framework.EventRecorder()
	if er == nil {
		return nil
	}
	return scheduledEvents{er, f.r}
}

// scheduledEvents adds the attempt's result to the note of the Scheduled
// Event the scheduler sends for a Pod it bound. A bound Pod's result then
// takes no Event of its own: an Event is one more create for the API server
// (its field manager, etcd, its lease) per Pod, as costly there as the
// binding itself.
type scheduledEvents struct {
	events.EventRecorderLogger
	r *Recorder
}

func (e scheduledEvents) WithLogger(logger klog.Logger) events.EventRecorderLogger {
	return scheduledEvents{e.EventRecorderLogger.WithLogger(logger), e.r}
}

func (e scheduledEvents) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if pod, ok := regarding.(*v1.Pod); ok && reason == ScheduledReason {
		if s := e.r.takeBound(pod.UID); s != nil {
			e.EventRecorderLogger.Eventf(regarding, related, eventtype, reason, action, "%s", s.ScheduledNote(fmt.Sprintf(note, args...)))
			return
		}
	}
	e.EventRecorderLogger.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

func (f *recordingFramework) RunFilterPluginsWithNominatedPods(ctx context.Context, state fwk.CycleState, pod *v1.Pod, info fwk.NodeInfo) *fwk.Status {
	s := f.Framework.RunFilterPluginsWithNominatedPods(ctx, state, pod, info)
	if a := attemptFrom(state); a != nil {
		a.filterInfo(info, s)
	}
	return s
}

func (f *recordingFramework) RunScorePlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, *fwk.Status) {
	scores, s := f.Framework.RunScorePlugins(ctx, state, pod, nodes)
	if a := attemptFrom(state); a != nil && s.IsSuccess() {
		// The scheduler adds the extenders' scores to this list, then
		// keeps it: scheduled copies it.
		a.setScores(scores)
	}
	return scores, s
}
