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
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
)

// stateKey is where an attempt lives in the scheduling cycle's CycleState,
// so that every plugin call of the cycle finds it without a lookup table.
const stateKey fwk.StateKey = "sim.x-k8s.io/scheduling-result"

// attemptRef holds the attempt in the CycleState. Clones share it: the
// framework clones the state to filter with nominated pods added, and
// preemption clones it for its dry runs, whose victims are recorded.
type attemptRef struct{ a *Attempt }

func (r *attemptRef) Clone() fwk.StateData { return r }

func attemptFrom(state fwk.CycleState) *Attempt {
	if state == nil {
		return nil
	}
	d, err := state.Read(stateKey)
	if err != nil {
		return nil
	}
	if r, ok := d.(*attemptRef); ok {
		return r.a
	}
	return nil
}

// Each wrapper forwards to the plugin it wraps and records what it returned.
// A wrapper implements exactly one extension point: the framework decides
// which points a plugin takes part in from the plugin itself, before the
// wrappers are put in place (see instrument.go).

type preFilter struct{ fwk.PreFilterPlugin }

func (p preFilter) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	res, s := p.PreFilterPlugin.PreFilter(ctx, state, pod, nodes)
	if a := attemptFrom(state); a != nil {
		a.preFilter(p.Name(), res, s)
	}
	return res, s
}

type postFilter struct{ fwk.PostFilterPlugin }

func (p postFilter) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	res, s := p.PostFilterPlugin.PostFilter(ctx, state, pod, m)
	if a := attemptFrom(state); a != nil {
		a.postFilter(p.Name(), res, s)
	}
	return res, s
}

// victimSelector records the victims preemption picks on each candidate
// node; PostFilter keeps those of the node it nominates. The evaluator
// calls it with a clone of the attempt's state, in parallel over nodes.
type victimSelector struct{ preemption.Interface }

func (v victimSelector) SelectVictimsOnNode(ctx context.Context, state fwk.CycleState, preemptor *v1.Pod, nodeInfo fwk.NodeInfo, all []*preemption.DomainVictim, pdbs []*policyv1.PodDisruptionBudget) ([]*v1.Pod, int, *fwk.Status) {
	pods, violations, s := v.Interface.SelectVictimsOnNode(ctx, state, preemptor, nodeInfo, all, pdbs)
	if a := attemptFrom(state); a != nil && s.IsSuccess() && nodeInfo.Node() != nil {
		names := make([]string, len(pods))
		for i, p := range pods {
			names[i] = p.Namespace + "/" + p.Name
		}
		a.candidate(nodeInfo.Node().Name, names)
	}
	return pods, violations, s
}

type preScore struct{ fwk.PreScorePlugin }

func (p preScore) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	s := p.PreScorePlugin.PreScore(ctx, state, pod, nodes)
	if a := attemptFrom(state); a != nil {
		a.setStatus(a.PreScore, p.Name(), s)
	}
	return s
}

type reserve struct{ fwk.ReservePlugin }

func (p reserve) Reserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	s := p.ReservePlugin.Reserve(ctx, state, pod, node)
	if a := attemptFrom(state); a != nil {
		a.setStatus(a.Reserve, p.Name(), s)
	}
	return s
}

type permit struct{ fwk.PermitPlugin }

func (p permit) Permit(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) (*fwk.Status, time.Duration) {
	s, timeout := p.PermitPlugin.Permit(ctx, state, pod, node)
	if a := attemptFrom(state); a != nil {
		a.permit(p.Name(), s, timeout)
	}
	return s, timeout
}

type preBind struct{ fwk.PreBindPlugin }

func (p preBind) PreBind(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	s := p.PreBindPlugin.PreBind(ctx, state, pod, node)
	if a := attemptFrom(state); a != nil {
		a.setStatus(a.PreBind, p.Name(), s)
	}
	return s
}

type bind struct {
	fwk.BindPlugin
	r  *Recorder
	fw fwk.Handle
}

func (p bind) Bind(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	a := attemptFrom(state)
	var s *fwk.Status
	var res *Result
	if a != nil && p.Name() == defaultbinder.Name {
		if ann, r, ok := p.r.bindingAnnotations(a, pod, node, p.Name()); ok {
			s, res = p.bindAnnotated(ctx, pod, node, ann), r
		}
	}
	if res == nil {
		s = p.BindPlugin.Bind(ctx, state, pod, node)
	}
	if a != nil {
		a.setStatus(a.Bind, p.Name(), s)
		if s.IsSuccess() {
			a.mu.Lock()
			a.AnnotatedOnBinding = res != nil
			a.mu.Unlock()
			p.r.finish(a, Bound, node, "")
			if res == nil {
				// Finished, the attempt is only read: by the sink too.
				res = a.Result()
			}
			p.r.boundBy(pod.UID, &res.Summary)
		}
	}
	return s
}

// bindAnnotated binds as the DefaultBinder does (through the scheduler's
// API cacher when it has one), with annotations on the Binding: the
// DefaultBinder has no way to add them.
func (p bind) bindAnnotated(ctx context.Context, pod *v1.Pod, node string, annotations map[string]string) *fwk.Status {
	binding := &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Annotations: annotations},
		Target:     v1.ObjectReference{Kind: "Node", Name: node},
	}
	if c := p.fw.APICacher(); c != nil {
		onFinish, err := c.BindPod(binding)
		if err != nil {
			return fwk.AsStatus(err)
		}
		if err := c.WaitOnFinish(ctx, onFinish); err != nil {
			return fwk.AsStatus(err)
		}
		return nil
	}
	if err := schedutil.BindPod(ctx, p.fw.ClientSet(), binding); err != nil {
		return fwk.AsStatus(err)
	}
	return nil
}

// extender records an extender's Filter and Prioritize results into the
// attempt of the Pod; the scheduler calls extenders without the cycle's
// state, during the Pod's scheduling cycle.
type extender struct {
	fwk.Extender
	r *Recorder
}

func (e *extender) Filter(pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodeInfo, extenderv1.FailedNodesMap, extenderv1.FailedNodesMap, error) {
	feasible, failed, unresolvable, err := e.Extender.Filter(pod, nodes)
	if a := e.r.inflightAttempt(pod.UID); a != nil {
		a.extenderFiltered(e.Name(), failed, unresolvable, err)
	}
	return feasible, failed, unresolvable, err
}

func (e *extender) Prioritize(pod *v1.Pod, nodes []fwk.NodeInfo) (*extenderv1.HostPriorityList, int64, error) {
	list, weight, err := e.Extender.Prioritize(pod, nodes)
	if a := e.r.inflightAttempt(pod.UID); a != nil && err == nil {
		a.extenderPrioritized(e.Name(), list, weight)
	}
	return list, weight, err
}
