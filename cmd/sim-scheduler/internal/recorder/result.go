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
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Result is a finished attempt, rendered: its compact Summary, and its
// per-plugin Fields under kube-scheduler-simulator's annotation names
// (without the prefix) and JSON shapes (scores are strings there).
type Result struct {
	Namespace, Name, UID string
	Summary              Summary
	a                    *Attempt
}

// Summary is the compact form of an attempt: its size does not grow with
// the number of nodes.
type Summary struct {
	Profile       string `json:"profile"`
	Outcome       string `json:"outcome"`
	Message       string `json:"message,omitempty"`
	SelectedNode  string `json:"selectedNode,omitempty"`
	NominatedNode string `json:"nominatedNode,omitempty"`
	// Victims: the Pods preemption evicts for the nominated node.
	Victims []string `json:"victims,omitempty"`
	// Nodes in the snapshot; Evaluated and Feasible as the scheduler counts.
	Nodes     int `json:"nodes"`
	Evaluated int `json:"evaluated"`
	Feasible  int `json:"feasible"`
	// FilterFailures: the nodes rejected, by plugin and reason, most first.
	FilterFailures []FilterFailure `json:"filterFailures,omitempty"`
	// TopScores: the best final (weighted, summed) scores, best first.
	TopScores []NodeScore `json:"topScores,omitempty"`
	Time      time.Time   `json:"time"`
	Duration  string      `json:"duration"`
}

// FilterFailure counts the nodes one plugin rejected for one reason.
type FilterFailure struct {
	Plugin string `json:"plugin"`
	Reason string `json:"reason"`
	Nodes  int    `json:"nodes"`
}

// NodeScore is a node's total final score.
type NodeScore struct {
	Node  string `json:"node"`
	Score int64  `json:"score"`
}

// Limits of the compact form.
const (
	maxFilterFailures = 20
	maxTopScores      = 10
	maxVictims        = 100
	maxMessage        = 1000
)

// Field is one per-plugin result; PerNode ones grow with the number of
// nodes. Write appends its JSON.
type Field struct {
	Name    string
	PerNode bool
	Write   func(*bytes.Buffer) error
}

// Fields are the per-plugin results in a fixed order.
func (r *Result) Fields() []Field {
	a := r.a
	postFilter := map[string]map[string]string{}
	if len(a.PostFilter) > 0 {
		// Upstream keys PostFilter results by the nominated node.
		postFilter[a.NominatedNode] = a.PostFilter
	}
	return []Field{
		{"prefilter-result-status", false, marshal(a.PreFilter)},
		{"prefilter-result", true, marshal(a.PreFilterNodes)},
		{"filter-result", true, a.writeFilter},
		{"postfilter-result", false, marshal(postFilter)},
		{"prescore-result", false, marshal(a.PreScore)},
		{"score-result", true, func(b *bytes.Buffer) error { return a.writeScores(b, false) }},
		{"finalscore-result", true, func(b *bytes.Buffer) error { return a.writeScores(b, true) }},
		{"reserve-result", false, marshal(a.Reserve)},
		{"permit-result", false, marshal(a.Permit)},
		{"permit-result-timeout", false, marshal(a.PermitTimeout)},
		{"prebind-result", false, marshal(a.PreBind)},
		{"bind-result", false, marshal(a.Bind)},
	}
}

func marshal(v any) func(*bytes.Buffer) error {
	return func(b *bytes.Buffer) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(data)
		return nil
	}
}

// writeFilter writes {node: {plugin: passed|reason}} without building it.
// Most nodes pass every plugin: their value is written once and copied.
func (a *Attempt) writeFilter(b *bytes.Buffer) error {
	var passed bytes.Buffer
	passed.WriteByte('{')
	for k, p := range a.plugins.Filter {
		if a.ran(k) {
			if passed.Len() > 1 {
				passed.WriteByte(',')
			}
			writeString(&passed, p)
			passed.WriteString(`:"` + Passed + `"`)
		}
	}
	passed.WriteByte('}')
	b.Grow(len(a.filtered) * (passed.Len() + 24))
	b.WriteByte('{')
	for i := range a.filtered {
		nr := &a.filtered[i]
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, nr.node)
		b.WriteByte(':')
		if nr.status == nil && len(a.extFilters) == 0 {
			b.Write(passed.Bytes())
			continue
		}
		b.WriteByte('{')
		first := true
		a.eachFilterOf(nr, func(plugin, value string) {
			if !first {
				b.WriteByte(',')
			}
			first = false
			writeString(b, plugin)
			b.WriteByte(':')
			writeString(b, value)
		})
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return nil
}

// writeScores writes {node: {plugin: "score"}}, raw or final.
func (a *Attempt) writeScores(b *bytes.Buffer, final bool) error {
	t := &a.table
	k := len(t.cols)
	// Each column's key, quoted once: `"Plugin":"`.
	keys := make([][]byte, k)
	for j, c := range t.cols {
		name := "?"
		if c >= 0 {
			name = a.plugins.Score[c]
		}
		var kb bytes.Buffer
		writeString(&kb, name)
		kb.WriteString(`:"`)
		keys[j] = kb.Bytes()
	}
	values := t.raw
	if final {
		values = t.final
	}
	b.Grow(len(t.nodes) * (k*24 + 16))
	b.WriteByte('{')
	var num [20]byte
	for i, node := range t.nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, node)
		b.WriteString(":{")
		for j := range k {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(keys[j])
			b.Write(strconv.AppendInt(num[:0], values[i*k+j], 10))
			b.WriteByte('"')
		}
		comma := k > 0
		for _, e := range t.extenders {
			s, ok := e.scores[node]
			if !ok {
				continue
			}
			if comma {
				b.WriteByte(',')
			}
			comma = true
			writeString(b, e.name)
			b.WriteString(`:"`)
			if final {
				s = e.final(s)
			}
			b.Write(strconv.AppendInt(num[:0], s, 10))
			b.WriteByte('"')
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return nil
}

// writeString writes s as a JSON string: directly when nothing in it needs
// escaping (node and plugin names, most reasons), else through encoding/json.
func writeString(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			data, _ := json.Marshal(s)
			b.Write(data)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
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
	for _, nr := range a.filtered {
		if nr.status != nil {
			p, _ := a.filterRejector(nr.status)
			counts[FilterFailure{Plugin: p, Reason: statusText(nr.status)}]++
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
