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

// Package recorder records, for every scheduling attempt, what each plugin
// of a scheduling framework returned at each extension point, without
// changing what the plugins decide.
package recorder

import (
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
)

// Outcome is how a scheduling attempt ended.
type Outcome string

const (
	// Bound: a bind plugin bound the Pod to the selected node.
	Bound Outcome = "Bound"
	// Unschedulable: no node fits (the scheduler may preempt and retry).
	Unschedulable Outcome = "Unschedulable"
	// Failed: an error (not a rejection) ended the attempt.
	Failed Outcome = "Error"
)

// Plugin-level values, as kube-scheduler-simulator writes them.
const (
	Passed  = "passed"
	Success = "success"
)

// maxIndexed is how many filter and score plugins a profile may have with
// per-node results (a bit each); more are recorded only when they reject.
const maxIndexed = 64

// Plugins are a profile's filter and score plugins in the order they run,
// and the score plugins' weights: per-node results refer to them by index.
type Plugins struct {
	Filter  []string
	Score   []string
	Weights []int64
}

// NewPlugins indexes filter plugins and weighted score plugins (sorted by
// name when given as a map).
func NewPlugins(filter []string, weights map[string]int64) *Plugins {
	p := &Plugins{Filter: filter}
	for name := range weights {
		p.Score = append(p.Score, name)
	}
	sort.Strings(p.Score)
	for _, name := range p.Score {
		p.Weights = append(p.Weights, weights[name])
	}
	return p
}

func (p *Plugins) scoreIndex(name string) int {
	for i, n := range p.Score {
		if n == name {
			return i
		}
	}
	return -1
}

// row is one node's per-node results: which filter plugins passed it,
// which one rejected it and why, and which score plugins scored it. A row
// per node, and flat score arrays, keep recording cheap at 5,000 nodes.
type row struct {
	node   string
	passed uint64
	// rejector is the plugin that rejected the node ("" if none): a filter
	// plugin, or, for nodes no filter ran on, why (see scheduled).
	rejector, reason string
	scored, normed   uint64
}

// Attempt is one scheduling attempt of one Pod in one profile. Plugins write
// into it concurrently (Filter and Score run in parallel over nodes); it is
// read only after it is finished.
type Attempt struct {
	Pod      types.NamespacedName
	UID      types.UID
	Profile  string
	Start    time.Time
	Duration time.Duration

	// NumNodes is the number of nodes in the snapshot; Evaluated and
	// Feasible come from the scheduler's result.
	NumNodes, EvaluatedNodes, FeasibleNodes int
	SelectedNode                            string
	NominatedNode                           string
	Outcome                                 Outcome
	Message                                 string

	mu sync.Mutex
	// done: the attempt is finished and handed on; late calls (an
	// asynchronous preemption, Unreserve) no longer change it.
	done bool
	// postFiltering: PostFilter has begun; the filter calls that follow are
	// preemption's dry runs, not this attempt's filtering.
	postFiltering bool

	plugins *Plugins
	index   map[string]int32
	rows    []row
	// raw and norm hold len(plugins.Score) scores per row.
	raw, norm []int64

	PreFilter      map[string]string   // plugin → success, skip or message
	PreFilterNodes map[string][]string // plugin → the node subset it returned
	PostFilter     map[string]string
	PreScore       map[string]string
	Reserve        map[string]string
	Permit         map[string]string
	PermitTimeout  map[string]string
	PreBind        map[string]string
	Bind           map[string]string
}

// NewAttempt starts an attempt; the Recorder does, at the start of a
// scheduling cycle.
func NewAttempt(pod types.NamespacedName, uid types.UID, profile string, numNodes int, plugins *Plugins) *Attempt {
	if plugins == nil {
		plugins = &Plugins{}
	}
	return &Attempt{
		Pod: pod, UID: uid, Profile: profile, Start: time.Now(), NumNodes: numNodes,
		plugins: plugins, index: map[string]int32{},
		PreFilter: map[string]string{}, PreFilterNodes: map[string][]string{},
		PostFilter: map[string]string{}, PreScore: map[string]string{},
		Reserve: map[string]string{}, Permit: map[string]string{}, PermitTimeout: map[string]string{},
		PreBind: map[string]string{}, Bind: map[string]string{},
	}
}

// statusText is a plugin's status as the upstream annotations show it.
func statusText(s *fwk.Status) string {
	switch {
	case s.IsSuccess():
		return Success
	case s.Message() == "":
		return s.Code().String()
	default:
		return s.Message()
	}
}

var zeros [maxIndexed]int64

// rowLocked is the node's row, added if new.
func (a *Attempt) rowLocked(node string) int {
	if i, ok := a.index[node]; ok {
		return int(i)
	}
	i := len(a.rows)
	a.index[node] = int32(i)
	a.rows = append(a.rows, row{node: node})
	z := zeros[:]
	if n := len(a.plugins.Score); n <= len(zeros) {
		z = zeros[:n]
	} else {
		z = make([]int64, n)
	}
	a.raw = append(a.raw, z...)
	a.norm = append(a.norm, z...)
	return i
}

func (a *Attempt) setStatus(m map[string]string, plugin string, s *fwk.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.done {
		m[plugin] = statusText(s)
	}
}

func (a *Attempt) beginPostFilter() {
	a.mu.Lock()
	a.postFiltering = true
	a.mu.Unlock()
}

func (a *Attempt) preFilter(plugin string, res *fwk.PreFilterResult, s *fwk.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return
	}
	a.PreFilter[plugin] = statusText(s)
	if res != nil && !res.AllNodes() {
		nodes := make([]string, 0, len(res.NodeNames))
		for n := range res.NodeNames {
			nodes = append(nodes, n)
		}
		sort.Strings(nodes)
		a.PreFilterNodes[plugin] = nodes
	}
}

// filter records filter plugin number idx (name plugin) on node.
func (a *Attempt) filter(idx int, plugin, node string, s *fwk.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done || a.postFiltering {
		return
	}
	r := &a.rows[a.rowLocked(node)]
	if s.IsSuccess() {
		if idx >= 0 && idx < maxIndexed {
			r.passed |= 1 << idx
		}
		return
	}
	r.rejector, r.reason = plugin, statusText(s)
}

func (a *Attempt) score(idx int, node string, score int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done || idx < 0 || idx >= maxIndexed {
		return
	}
	i := a.rowLocked(node)
	a.raw[i*len(a.plugins.Score)+idx] = score
	a.rows[i].scored |= 1 << idx
}

func (a *Attempt) normalized(idx int, scores fwk.NodeScoreList) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done || idx < 0 || idx >= maxIndexed {
		return
	}
	n := len(a.plugins.Score)
	for _, ns := range scores {
		i := a.rowLocked(ns.Name)
		a.norm[i*n+idx] = ns.Score
		a.rows[i].normed |= 1 << idx
	}
}

func (a *Attempt) postFilter(plugin string, res *fwk.PostFilterResult, s *fwk.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return
	}
	a.PostFilter[plugin] = statusText(s)
	if res != nil && res.NominatingInfo != nil && res.NominatedNodeName != "" {
		a.NominatedNode = res.NominatedNodeName
	}
}

func (a *Attempt) permit(plugin string, s *fwk.Status, timeout time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return
	}
	a.Permit[plugin] = statusText(s)
	if s.IsWait() {
		a.PermitTimeout[plugin] = timeout.String()
	}
}

// The accessors below read a finished attempt.

// ForEachFilter calls f for every node a filter plugin ran on (or that
// was rejected before Filter), with its plugins' results in run order.
func (a *Attempt) ForEachFilter(f func(node string, plugin, value string, first bool)) {
	for _, r := range a.rows {
		if r.passed == 0 && r.rejector == "" {
			continue // scored only (a nominated or hinted node reuses no filter)
		}
		first := true
		for i, p := range a.plugins.Filter {
			if i < maxIndexed && r.passed&(1<<i) != 0 {
				f(r.node, p, Passed, first)
				first = false
			}
		}
		if r.rejector != "" {
			f(r.node, r.rejector, r.reason, first)
		}
	}
}

// FilterResults is filter-result as maps: node → plugin → passed or reason.
func (a *Attempt) FilterResults() map[string]map[string]string {
	out := map[string]map[string]string{}
	a.ForEachFilter(func(node, plugin, value string, first bool) {
		if first {
			out[node] = map[string]string{}
		}
		out[node][plugin] = value
	})
	return out
}

// ForEachScore calls f for every scored node with each score plugin's raw
// score and final score: normalized (raw without NormalizeScore) times the
// plugin's weight, what the framework adds up.
func (a *Attempt) ForEachScore(f func(node, plugin string, raw, final int64, first bool)) {
	n := len(a.plugins.Score)
	for i, r := range a.rows {
		if r.scored == 0 {
			continue
		}
		first := true
		for j, p := range a.plugins.Score {
			if r.scored&(1<<j) == 0 {
				continue
			}
			raw, v := a.raw[i*n+j], a.raw[i*n+j]
			if r.normed&(1<<j) != 0 {
				v = a.norm[i*n+j]
			}
			f(r.node, p, raw, v*a.plugins.Weights[j], first)
			first = false
		}
	}
}

// RawScores is score-result as maps: node → plugin → raw score.
func (a *Attempt) RawScores() map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	a.ForEachScore(func(node, plugin string, raw, _ int64, first bool) {
		if first {
			out[node] = map[string]int64{}
		}
		out[node][plugin] = raw
	})
	return out
}

// FinalScores is finalscore-result as maps: node → plugin → final score.
func (a *Attempt) FinalScores() map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	a.ForEachScore(func(node, plugin string, _, final int64, first bool) {
		if first {
			out[node] = map[string]int64{}
		}
		out[node][plugin] = final
	})
	return out
}

// SetFilter and SetScore record results directly, for tests of what reads
// attempts.
func (a *Attempt) SetFilter(node, plugin, value string) {
	idx := -1
	for i, p := range a.plugins.Filter {
		if p == plugin {
			idx = i
		}
	}
	s := fwk.NewStatus(fwk.Unschedulable, value)
	if value == Passed {
		s = nil
	}
	if idx < 0 && value == Passed {
		return
	}
	a.filter(idx, plugin, node, s)
}

// SetScore records a raw score (no normalization).
func (a *Attempt) SetScore(node, plugin string, raw int64) {
	a.score(a.plugins.scoreIndex(plugin), node, raw)
}
