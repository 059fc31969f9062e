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
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// Result is a finished attempt: its compact Summary, and its full
// Document.
type Result struct {
	Namespace, Name, UID string
	Summary              Summary
	a                    *Attempt
}

// Summary is the compact form of an attempt, in the results' format that
// kubectl sim reads too (its fields are there); here it has the notes of
// the scheduler's Events.
type Summary schedulingresult.Summary

type (
	FilterFailure = schedulingresult.FilterFailure
	NodeScore     = schedulingresult.NodeScore
)

// Limits of the compact form.
const (
	maxFilterFailures = 20
	maxTopScores      = 10
	maxVictims        = 100
	maxMessage        = 1000
)

// Document is the attempt's full result, compact, as the scheduler stores
// it: the per-plugin results in a fixed order, under kube-scheduler-
// simulator's annotation names (without the prefix) and in its JSON shapes
// once rendered.
func (r *Result) Document() (*schedulingresult.Document, error) {
	a := r.a
	postFilter := map[string]map[string]string{}
	if len(a.PostFilter) > 0 {
		// Upstream keys PostFilter results by the nominated node.
		postFilter[a.NominatedNode] = a.PostFilter
	}
	summary, err := json.Marshal(r.Summary)
	if err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	d := &schedulingresult.Document{Namespace: r.Namespace, Name: r.Name, UID: r.UID, Summary: summary,
		Filter: a.filterTable(), Scores: a.scoreTable()}
	for _, f := range []struct {
		name    string
		perNode bool
		value   any
	}{
		{"prefilter-result-status", false, a.PreFilter},
		{"prefilter-result", true, a.PreFilterNodes},
		{"filter-result", true, schedulingresult.KindFilter},
		{"postfilter-result", false, postFilter},
		{"prescore-result", false, a.PreScore},
		{"score-result", true, schedulingresult.KindRawScores},
		{"finalscore-result", true, schedulingresult.KindFinalScores},
		{"reserve-result", false, a.Reserve},
		{"permit-result", false, a.Permit},
		{"permit-result-timeout", false, a.PermitTimeout},
		{"prebind-result", false, a.PreBind},
		{"bind-result", false, a.Bind},
	} {
		field := schedulingresult.Field{Name: f.name, PerNode: f.perNode}
		if kind, ok := f.value.(schedulingresult.Kind); ok {
			field.Kind = kind
		} else if field.Value, err = json.Marshal(f.value); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		d.Fields = append(d.Fields, field)
	}
	return d, nil
}

// filterTable is filter-result: the filtered nodes, each with the index of
// its plugins' results among the distinct ones. Most nodes passed every
// plugin that ran, and the rejected ones mostly share a few reasons: a
// node's results are worked out once per plugin and reason, not per node.
func (a *Attempt) filterTable() schedulingresult.FilterTable {
	t := schedulingresult.FilterTable{Nodes: make([]string, len(a.filtered)), Of: make([]int, len(a.filtered))}
	type key struct {
		rejector, reason string
		// extenders: what filtering extenders said, in order (the rare case).
		extenders string
	}
	seen := map[key]int{}
	var last key
	var results []schedulingresult.PluginResult
	for i := range a.filtered {
		nr := &a.filtered[i]
		t.Nodes[i] = nr.node
		var k key
		switch {
		case nr.status != nil:
			// Passed the plugins before the rejector, in order.
			k.rejector, _ = a.filterRejector(nr.status)
			k.reason = statusText(nr.status)
		case len(a.extFilters) > 0:
			var b strings.Builder
			for j := range a.extFilters {
				v, next := a.extFilters[j].verdict(nr.node)
				b.WriteString(v)
				b.WriteByte(0)
				if !next {
					break
				}
			}
			k.extenders = b.String()
		}
		if i > 0 && k == last {
			// Neighbours mostly share their results: no hashing of them.
			t.Of[i] = t.Of[i-1]
			continue
		}
		last = k
		v, ok := seen[k]
		if !ok {
			results = results[:0]
			a.eachFilterOf(nr, func(plugin, value string) {
				results = append(results, schedulingresult.PluginResult{Plugin: plugin, Result: value})
			})
			v = len(t.Verdicts)
			t.Verdicts = append(t.Verdicts, slices.Clone(results))
			seen[k] = v
		}
		t.Of[i] = v
	}
	return t
}

// scoreTable is score-result and finalscore-result: the score plugins'
// columns, then the extenders', which need not have scored every node.
func (a *Attempt) scoreTable() schedulingresult.ScoreTable {
	t := &a.table
	out := schedulingresult.ScoreTable{Nodes: t.nodes, Raw: t.raw, Final: t.final}
	for _, c := range t.cols {
		name := "?"
		if c >= 0 {
			name = a.plugins.Score[c]
		}
		out.Plugins = append(out.Plugins, name)
	}
	if len(t.extenders) == 0 {
		return out
	}
	k, cols := len(t.cols), len(t.cols)+len(t.extenders)
	out.Raw, out.Final = make([]int64, len(t.nodes)*cols), make([]int64, len(t.nodes)*cols)
	out.Missing = make([]bool, len(t.nodes)*cols)
	for _, e := range t.extenders {
		out.Plugins = append(out.Plugins, e.name)
	}
	for i, node := range t.nodes {
		copy(out.Raw[i*cols:], t.raw[i*k:(i+1)*k])
		copy(out.Final[i*cols:], t.final[i*k:(i+1)*k])
		for j, e := range t.extenders {
			s, ok := e.scores[node]
			out.Raw[i*cols+k+j], out.Missing[i*cols+k+j] = s, !ok
			if ok {
				out.Final[i*cols+k+j] = e.final(s)
			}
		}
	}
	return out
}

// Result renders the attempt. Call it only after the attempt is finished.
func (a *Attempt) Result() *Result {
	return &Result{Namespace: a.Pod.Namespace, Name: a.Pod.Name, UID: string(a.UID), Summary: a.summary(), a: a}
}

func (a *Attempt) summary() Summary {
	s := Summary{
		Profile: a.Profile, Outcome: string(a.Outcome), Message: truncate(a.Message, maxMessage),
		SelectedNode: a.SelectedNode, NominatedNode: a.NominatedNode, Victims: a.Victims,
		Nodes: a.NumNodes, Evaluated: a.EvaluatedNodes, Feasible: a.FeasibleNodes,
		Time: a.Start.UTC().Truncate(time.Millisecond), Duration: a.Duration.Round(time.Microsecond).String(),
	}
	if len(s.Victims) > maxVictims {
		s.Victims = s.Victims[:maxVictims]
	}
	s.FilterFailures = a.filterFailures()
	s.TopScores = a.topScores(maxTopScores)
	return s
}

// filterFailures groups the rejected nodes by plugin and reason.
func (a *Attempt) filterFailures() []FilterFailure {
	counts := map[FilterFailure]int{}
	// Neighbours mostly fail alike: counted without hashing their reason.
	var last FilterFailure
	run := 0
	for _, nr := range a.filtered {
		if nr.status != nil {
			p, _ := a.filterRejector(nr.status)
			if f := (FilterFailure{Plugin: p, Reason: statusText(nr.status)}); f == last {
				run++
			} else {
				if run > 0 {
					counts[last] += run
				}
				last, run = f, 1
			}
			continue
		}
		for i := range a.extFilters {
			v, next := a.extFilters[i].verdict(nr.node)
			if !next {
				counts[FilterFailure{Plugin: a.extFilters[i].name, Reason: v}]++
				break
			}
		}
	}
	if run > 0 {
		counts[last] += run
	}
	out := make([]FilterFailure, 0, len(counts))
	for k, n := range counts {
		k.Nodes = n
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Nodes != out[j].Nodes {
			return out[i].Nodes > out[j].Nodes
		}
		if out[i].Plugin != out[j].Plugin {
			return out[i].Plugin < out[j].Plugin
		}
		return out[i].Reason < out[j].Reason
	})
	if len(out) > maxFilterFailures {
		out = out[:maxFilterFailures]
	}
	for i := range out {
		out[i].Reason = truncate(out[i].Reason, 256)
	}
	return out
}

// topScores are the n best total final scores. The scheduler breaks ties
// at random: among equals the selected node comes first, then by name.
// It keeps only the n best while it adds up each node's total: sorting
// every scored node (thousands) cost more than the rest of the summary.
func (a *Attempt) topScores(n int) []NodeScore {
	better := func(x, y NodeScore) bool {
		if x.Score != y.Score {
			return x.Score > y.Score
		}
		if (x.Node == a.SelectedNode) != (y.Node == a.SelectedNode) {
			return x.Node == a.SelectedNode
		}
		return x.Node < y.Node
	}
	top := make([]NodeScore, 0, n+1)
	consider := func(ns NodeScore) {
		if n <= 0 || len(top) == n && !better(ns, top[n-1]) {
			return
		}
		i := sort.Search(len(top), func(i int) bool { return better(ns, top[i]) })
		top = slices.Insert(top, i, ns)
		if len(top) > n {
			top = top[:n]
		}
	}
	// Totals straight from the table's rows, as ForEachScore would add
	// them up: a callback per node and plugin cost more than the selection
	// (a CPU profile of the scheduling benchmark at 5,000 nodes).
	t := &a.table
	k := len(t.cols)
	for i, node := range t.nodes {
		ns, scored := NodeScore{Node: node}, k > 0
		for _, s := range t.final[i*k : (i+1)*k] {
			ns.Score += s
		}
		for _, e := range t.extenders {
			if s, ok := e.scores[node]; ok {
				ns.Score += e.final(s)
				scored = true
			}
		}
		if scored {
			consider(ns)
		}
	}
	if len(top) == 0 {
		return nil
	}
	return top
}

// Text is a one-line summary for humans (an Event's note).
func (s *Summary) Text() string {
	var b strings.Builder
	switch s.Outcome {
	case string(Bound):
		fmt.Fprintf(&b, "scheduled to %s ", s.SelectedNode)
		s.writeWhy(&b)
	default:
		if s.SelectedNode != "" {
			// Rejected after a node was chosen (Reserve, Permit, PreBind, Bind).
			fmt.Fprintf(&b, "%s selected, then %s: %s", s.SelectedNode, strings.ToLower(s.Outcome), s.Message)
			break
		}
		fmt.Fprintf(&b, "%d/%d nodes", s.Feasible, s.Nodes)
		if len(s.FilterFailures) > 0 {
			b.WriteString(":")
			for i, f := range s.FilterFailures {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, " %s: %s (%d)", f.Plugin, f.Reason, f.Nodes)
			}
		} else if s.Message != "" {
			fmt.Fprintf(&b, ": %s", s.Message)
		}
		if s.NominatedNode != "" {
			fmt.Fprintf(&b, "; nominated %s for preemption", s.NominatedNode)
			if len(s.Victims) > 0 {
				fmt.Fprintf(&b, " of %s", strings.Join(s.Victims, ", "))
			}
		}
	}
	return truncate(b.String(), maxMessage)
}

// ScheduledNote is note, the scheduler's own note of the Scheduled Event of
// the bound Pod ("Successfully assigned ns/name to node"), with why that
// node: a bound Pod's result needs no Event of its own.
func (s *Summary) ScheduledNote(note string) string {
	var b strings.Builder
	b.WriteString(note)
	b.WriteByte(' ')
	s.writeWhy(&b)
	return truncate(b.String(), maxMessage)
}

// writeWhy writes why a bound Pod's node was chosen: how many nodes were
// evaluated and fit, and the best total scores.
func (s *Summary) writeWhy(b *strings.Builder) {
	fmt.Fprintf(b, "(%d/%d nodes evaluated, %d feasible)", s.Evaluated, s.Nodes, s.Feasible)
	if len(s.TopScores) == 0 {
		return
	}
	b.WriteString(": top scores")
	for i, ns := range s.TopScores {
		if i == 5 {
			b.WriteString(" …")
			break
		}
		fmt.Fprintf(b, " %s %d", ns.Node, ns.Score)
		if i < len(s.TopScores)-1 && i < 4 {
			b.WriteString(",")
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut at a rune boundary.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
