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
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
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

// PreFilterRejector names the rejector of the nodes no filter plugin ran
// on (a PreFilter plugin rejected the Pod, or left the node out).
const PreFilterRejector = "PreFilter"

// maxSkippable is how many filter plugins a profile may have whose
// PreFilter Skip is told apart (a bit each); beyond, they show as passed.
const maxSkippable = 64

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

func indexOf(list []string, name string) int {
	for i, n := range list {
		if n == name {
			return i
		}
	}
	return -1
}

// nodeIndex numbers the nodes of one snapshot node list, so that an
// attempt's per-node results are slots of a slice, written without locks
// by the goroutines that filter, rather than entries of a map. It is read
// only once built, and shared by the attempts while the list stays.
type nodeIndex struct {
	names []string
	index map[string]int32
	// byInfo finds a node from the NodeInfo of the list that the framework
	// filters it with: a pointer key is hashed and compared without reading
	// the node's name. Filtering is the scheduling cycle's longest part, and
	// looking nodes up by name took a fifth to a third of the time of each
	// node's filtering at 5,000 nodes (CPU profiles of the scheduling
	// benchmark: 0.18-0.29 s of 0.85-1.17 s).
	byInfo map[*framework.NodeInfo]int32
}

func newNodeIndex(list []fwk.NodeInfo) *nodeIndex {
	x := &nodeIndex{names: make([]string, 0, len(list)), index: make(map[string]int32, len(list)),
		byInfo: make(map[*framework.NodeInfo]int32, len(list))}
	for _, ni := range list {
		if n := ni.Node(); n != nil {
			i := int32(len(x.names))
			x.index[n.Name] = i
			if p, ok := ni.(*framework.NodeInfo); ok {
				x.byInfo[p] = i
			}
			x.names = append(x.names, n.Name)
		}
	}
	return x
}

// row is a node's filtering: not filtered, passed every filter plugin
// that ran, or rejected (status says by which plugin, and why). Which
// plugins passed follows from their order: the framework runs them in
// order and stops at the first rejection.
type row struct {
	status *fwk.Status
	state  uint8
}

const (
	rowNone uint8 = iota
	rowPassed
	rowRejected
)

// rowsPool holds rows of finished attempts for the next ones: an attempt
// needs a row per node (80 KiB at 5,000 nodes), only until it finishes.
var rowsPool sync.Pool

func getRows(n int) []row {
	if p, ok := rowsPool.Get().(*[]row); ok && cap(*p) >= n {
		rows := (*p)[:n]
		clear(rows)
		return rows
	}
	return make([]row, n)
}

// putRows hands rows back. Only finished attempts do: every write into
// rows (Filter, then scheduled) happens before the attempt finishes.
func putRows(rows []row) {
	if rows != nil {
		rowsPool.Put(&rows)
	}
}

// nodeResult is a filtered node of a finished attempt.
type nodeResult struct {
	node   string
	status *fwk.Status // nil: passed
}

// scoreTable holds the scores of a finished attempt: for each scored node,
// a raw and a final (normalized, weighted) score per column. Columns are
// score plugins (cols indexes Plugins.Score), then extenders.
type scoreTable struct {
	cols       []int
	extenders  []extenderScores
	nodes      []string
	raw, final []int64 // len(nodes) × len(cols), row-major
}

// extenderScores are an extender's Prioritize results.
type extenderScores struct {
	name   string
	weight int64
	scores map[string]int64 // node → the extender's own score
}

// final is what the scheduler adds up for an extender's score: times its
// weight, scaled to the plugins' range.
func (e *extenderScores) final(score int64) int64 {
	return score * e.weight * (fwk.MaxScore / extenderv1.MaxExtenderPriority)
}

// extenderFilter is one call of an extender's Filter.
type extenderFilter struct {
	name                 string
	failed, unresolvable extenderv1.FailedNodesMap
	err                  string
}

// Attempt is one scheduling attempt of one Pod in one profile. The
// scheduler's goroutines write into it concurrently (Filter runs in
// parallel over nodes); it is read only after it is finished.
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
	// Victims are the Pods (namespace/name) that preemption evicts to make
	// room on NominatedNode.
	Victims []string
	Outcome Outcome
	Message string

	// AnnotatedOnBinding: the Pod's result annotations rode on its
	// Binding (see BindingAnnotator), so publishing needs no patch.
	AnnotatedOnBinding bool

	mu sync.Mutex
	// done: the attempt is finished and handed on; late calls (an
	// asynchronous preemption, Unreserve) no longer change it. Set under
	// mu; atomic so that filter, which takes no lock, may read it.
	done atomic.Bool
	// sealed: the per-node results (filter rows, scores) are compacted;
	// set when finished, or earlier, when its binding is annotated. Set
	// under mu; atomic for filter.
	sealed atomic.Bool

	plugins *Plugins
	// While recording: rows by node index, and rows of nodes the index
	// does not know (under mu). Compacted into filtered when finished.
	nodes      *nodeIndex
	rows       []row
	extra      map[string]*row
	extraNames []string
	filtered   []nodeResult
	// skipFilter: bit k when Filter[k] did not run (PreFilter said Skip).
	skipFilter uint64
	// scored is the framework's own score list, compacted into table.
	scored []fwk.NodePluginScores
	table  scoreTable
	// candidates are preemption's victims by candidate node, until
	// PostFilter nominates one.
	candidates map[string][]string

	extFilters []extenderFilter
	extScores  []extenderScores

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
		plugins: plugins, nodes: &nodeIndex{}, extra: map[string]*row{},
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

// row is node's row. Nodes of the index need no lock: each node is
// filtered by one goroutine at a time.
func (a *Attempt) row(node string) *row {
	if i, ok := a.nodes.index[node]; ok {
		return &a.rows[i]
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.extra[node]
	if r == nil {
		r = &row{}
		a.extra[node] = r
		a.extraNames = append(a.extraNames, node)
	}
	return r
}

// filter records what the filter plugins said of node.
func (a *Attempt) filter(node string, s *fwk.Status) {
	if a.sealed.Load() {
		return
	}
	a.row(node).set(s)
}

// filterInfo records what the filter plugins said of the node of info, a
// NodeInfo of the snapshot's list when the scheduler filters its nodes.
func (a *Attempt) filterInfo(info fwk.NodeInfo, s *fwk.Status) {
	if a.sealed.Load() {
		return
	}
	if p, ok := info.(*framework.NodeInfo); ok {
		if i, ok := a.nodes.byInfo[p]; ok {
			a.rows[i].set(s)
			return
		}
	}
	a.row(info.Node().Name).set(s)
}

func (r *row) set(s *fwk.Status) {
	if s.IsSuccess() {
		if r.state == rowNone {
			r.state = rowPassed
		}
		return
	}
	r.state, r.status = rowRejected, s
}

func (a *Attempt) setScores(scores []fwk.NodePluginScores) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.sealed.Load() {
		a.scored = scores
	}
}

func (a *Attempt) setStatus(m map[string]string, plugin string, s *fwk.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.done.Load() {
		m[plugin] = statusText(s)
	}
}

func (a *Attempt) preFilter(plugin string, res *fwk.PreFilterResult, s *fwk.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done.Load() {
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

func (a *Attempt) candidate(node string, victims []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done.Load() {
		return
	}
	if a.candidates == nil {
		a.candidates = map[string][]string{}
	}
	a.candidates[node] = victims
}

func (a *Attempt) postFilter(plugin string, res *fwk.PostFilterResult, s *fwk.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done.Load() {
		return
	}
	a.PostFilter[plugin] = statusText(s)
	if res != nil && res.NominatingInfo != nil && res.NominatedNodeName != "" {
		a.NominatedNode = res.NominatedNodeName
		if v, ok := a.candidates[a.NominatedNode]; ok {
			a.Victims = v
		}
	}
	a.candidates = nil
}

func (a *Attempt) permit(plugin string, s *fwk.Status, timeout time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done.Load() {
		return
	}
	a.Permit[plugin] = statusText(s)
	if s.IsWait() {
		a.PermitTimeout[plugin] = timeout.String()
	}
}

func (a *Attempt) extenderFiltered(name string, failed, unresolvable extenderv1.FailedNodesMap, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done.Load() {
		return
	}
	f := extenderFilter{name: name, failed: failed, unresolvable: unresolvable}
	if err != nil {
		f.err = err.Error()
	}
	a.extFilters = append(a.extFilters, f)
}

func (a *Attempt) extenderPrioritized(name string, list *extenderv1.HostPriorityList, weight int64) {
	if list == nil {
		return
	}
	scores := make(map[string]int64, len(*list))
	for _, hp := range *list {
		scores[hp.Host] = hp.Score
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.sealed.Load() {
		a.extScores = append(a.extScores, extenderScores{name: name, weight: weight, scores: scores})
	}
}

// sealLocked compacts the per-node results, once: after it, the attempt's
// filter and score results no longer change.
func (a *Attempt) sealLocked() {
	if a.sealed.Load() {
		return
	}
	a.sealed.Store(true)
	a.compactLocked()
}

// compactLocked turns what recording needed (rows by node index, the
// framework's score list) into the finished attempt's dense form, so that
// an attempt waiting to be published holds only what it found.
func (a *Attempt) compactLocked() {
	n := 0
	for i := range a.rows {
		if a.rows[i].state != rowNone {
			n++
		}
	}
	a.filtered = make([]nodeResult, 0, n+len(a.extraNames))
	add := func(node string, r *row) {
		switch r.state {
		case rowPassed:
			a.filtered = append(a.filtered, nodeResult{node: node})
		case rowRejected:
			a.filtered = append(a.filtered, nodeResult{node: node, status: r.status})
		}
	}
	for i := range a.rows {
		add(a.nodes.names[i], &a.rows[i])
	}
	for _, node := range a.extraNames {
		add(node, a.extra[node])
	}
	putRows(a.rows)
	a.rows, a.extra, a.extraNames = nil, nil, nil

	sort.Slice(a.extScores, func(i, j int) bool { return a.extScores[i].name < a.extScores[j].name })
	if len(a.scored) > 0 {
		t := &a.table
		for _, ps := range a.scored[0].RawScores {
			t.cols = append(t.cols, indexOf(a.plugins.Score, ps.Name))
		}
		k := len(t.cols)
		t.nodes = make([]string, len(a.scored))
		t.raw = make([]int64, len(a.scored)*k)
		t.final = make([]int64, len(a.scored)*k)
		for i, ns := range a.scored {
			t.nodes[i] = ns.Name
			for j := 0; j < k && j < len(ns.RawScores); j++ {
				t.raw[i*k+j] = ns.RawScores[j].Score
			}
			// Scores are the plugins' (normalized, weighted) in the same
			// order, then the extenders' (see extScores).
			for j := 0; j < k && j < len(ns.Scores); j++ {
				t.final[i*k+j] = ns.Scores[j].Score
			}
		}
	}
	a.scored = nil
	if len(a.extScores) > 0 && a.table.nodes == nil {
		// Only extenders scored (no score plugin ran): their nodes.
		seen := map[string]bool{}
		for _, e := range a.extScores {
			for node := range e.scores {
				if !seen[node] {
					seen[node] = true
					a.table.nodes = append(a.table.nodes, node)
				}
			}
		}
		sort.Strings(a.table.nodes)
	}
	a.table.extenders = a.extScores
}

// The accessors below read a finished attempt.

// filterRejector is the plugin that rejected a node, and its index in
// Plugins.Filter (-1 when it is no filter plugin).
func (a *Attempt) filterRejector(s *fwk.Status) (string, int) {
	p := s.Plugin()
	if p == "" {
		return PreFilterRejector, -1
	}
	return p, indexOf(a.plugins.Filter, p)
}

// ran reports whether filter plugin k ran in this attempt.
func (a *Attempt) ran(k int) bool {
	return k >= maxSkippable || a.skipFilter&(1<<k) == 0
}

// extenderVerdict is what extender call e said of a node that passed the
// filter plugins, and whether the node went on to the next extender.
func (e *extenderFilter) verdict(node string) (string, bool) {
	if r, ok := e.unresolvable[node]; ok {
		return r, false
	}
	if r, ok := e.failed[node]; ok {
		return r, false
	}
	if e.err != "" {
		return "error: " + e.err, true
	}
	return Passed, true
}

// ForEachFilter calls f for every node a filter plugin ran on (or that
// was rejected before Filter), with its plugins' and filtering extenders'
// results in run order.
func (a *Attempt) ForEachFilter(f func(node string, plugin, value string, first bool)) {
	for i := range a.filtered {
		nr := &a.filtered[i]
		first := true
		a.eachFilterOf(nr, func(plugin, value string) {
			f(nr.node, plugin, value, first)
			first = false
		})
	}
}

// eachFilterOf calls f with the filter results of one node in run order.
func (a *Attempt) eachFilterOf(nr *nodeResult, f func(plugin, value string)) {
	last := len(a.plugins.Filter)
	if nr.status != nil {
		rejector, k := a.filterRejector(nr.status)
		if k < 0 {
			f(rejector, statusText(nr.status))
			return
		}
		last = k
	}
	for k := 0; k < last; k++ {
		if a.ran(k) {
			f(a.plugins.Filter[k], Passed)
		}
	}
	if nr.status != nil {
		f(a.plugins.Filter[last], statusText(nr.status))
		return
	}
	for i := range a.extFilters {
		v, next := a.extFilters[i].verdict(nr.node)
		f(a.extFilters[i].name, v)
		if !next {
			return
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
// score and final score (normalized times the plugin's weight, what the
// framework adds up), then each prioritizing extender's score and final
// score (times its weight, scaled to the plugins' range, as the scheduler
// adds it).
func (a *Attempt) ForEachScore(f func(node, plugin string, raw, final int64, first bool)) {
	t := &a.table
	k := len(t.cols)
	for i, node := range t.nodes {
		first := true
		for j, c := range t.cols {
			name := "?"
			if c >= 0 {
				name = a.plugins.Score[c]
			}
			f(node, name, t.raw[i*k+j], t.final[i*k+j], first)
			first = false
		}
		for _, e := range t.extenders {
			if s, ok := e.scores[node]; ok {
				f(node, e.name, s, e.final(s), first)
				first = false
			}
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

// SetFilter and SetScore record results directly into a finished attempt,
// for tests of what reads attempts. A node's filter results are set in
// run order: passed, then at most one rejection.
func (a *Attempt) SetFilter(node, plugin, value string) {
	for i := range a.filtered {
		if a.filtered[i].node == node {
			if value != Passed {
				a.filtered[i].status = fwk.NewStatus(fwk.Unschedulable, value).WithPlugin(plugin)
			}
			return
		}
	}
	nr := nodeResult{node: node}
	if value != Passed {
		nr.status = fwk.NewStatus(fwk.Unschedulable, value).WithPlugin(plugin)
	}
	a.filtered = append(a.filtered, nr)
}

// SetScore records a raw score, and as final score the raw one times the
// plugin's weight (no normalization).
func (a *Attempt) SetScore(node, plugin string, raw int64) {
	t := &a.table
	if t.cols == nil {
		for i := range a.plugins.Score {
			t.cols = append(t.cols, i)
		}
	}
	i := indexOf(t.nodes, node)
	if i < 0 {
		i = len(t.nodes)
		t.nodes = append(t.nodes, node)
		t.raw = append(t.raw, make([]int64, len(t.cols))...)
		t.final = append(t.final, make([]int64, len(t.cols))...)
	}
	if j := indexOf(a.plugins.Score, plugin); j >= 0 {
		t.raw[i*len(t.cols)+j] = raw
		t.final[i*len(t.cols)+j] = raw * a.plugins.Weights[j]
	}
}
