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
	fwk "k8s.io/kube-scheduler/framework"
)

// stateKey is where an attempt lives in the scheduling cycle's CycleState,
// so that every plugin call of the cycle finds it without a lookup table.
const stateKey fwk.StateKey = "sim.x-k8s.io/scheduling-result"

// attemptRef holds the attempt in the CycleState. Clones share it: the
// framework clones the state to filter with nominated pods added, and that
// result is the attempt's; preemption's dry runs also clone it, and the
// attempt ignores filter results once PostFilter has begun.
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

type filter struct {
	fwk.FilterPlugin
	idx  int // in Plugins.Filter
	name string
}

func (p filter) Filter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node fwk.NodeInfo) *fwk.Status {
	s := p.FilterPlugin.Filter(ctx, state, pod, node)
	if a := attemptFrom(state); a != nil {
		a.filter(p.idx, p.name, node.Node().Name, s)
	}
	return s
}

type postFilter struct{ fwk.PostFilterPlugin }

func (p postFilter) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	a := attemptFrom(state)
	if a != nil {
		a.beginPostFilter()
	}
	res, s := p.PostFilterPlugin.PostFilter(ctx, state, pod, m)
	if a != nil {
		a.postFilter(p.Name(), res, s)
	}
	return res, s
}

type preScore struct{ fwk.PreScorePlugin }

func (p preScore) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	s := p.PreScorePlugin.PreScore(ctx, state, pod, nodes)
	if a := attemptFrom(state); a != nil {
		a.setStatus(a.PreScore, p.Name(), s)
	}
	return s
}

type score struct {
	fwk.ScorePlugin
	idx int // in Plugins.Score
}

func (p score) Score(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node fwk.NodeInfo) (int64, *fwk.Status) {
	v, s := p.ScorePlugin.Score(ctx, state, pod, node)
	if a := attemptFrom(state); a != nil && s.IsSuccess() {
		a.score(p.idx, node.Node().Name, v)
	}
	return v, s
}

func (p score) ScoreExtensions() fwk.ScoreExtensions {
	ext := p.ScorePlugin.ScoreExtensions()
	if ext == nil {
		return nil
	}
	return normalize{ScoreExtensions: ext, idx: p.idx}
}

type normalize struct {
	fwk.ScoreExtensions
	idx int
}

func (n normalize) NormalizeScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	s := n.ScoreExtensions.NormalizeScore(ctx, state, pod, scores)
	if a := attemptFrom(state); a != nil && s.IsSuccess() {
		a.normalized(n.idx, scores)
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
	r *Recorder
}

func (p bind) Bind(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	s := p.BindPlugin.Bind(ctx, state, pod, node)
	if a := attemptFrom(state); a != nil {
		a.setStatus(a.Bind, p.Name(), s)
		if s.IsSuccess() {
			p.r.finish(a, Bound, node, "")
		}
	}
	return s
}
