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

// Package schedulingresult holds the full result of one scheduling attempt
// in the compact form that the scheduler stores (cmd/sim-scheduler) and
// renders it as the JSON document that the simulator serves
// (cmd/simulator/internal/server): kube-scheduler-simulator's per-plugin results,
// under its annotation names.
//
// The scheduler stored that JSON itself until rendering and writing it
// took a twelfth of its CPU at 5,000 nodes, on the binding path (profiles
// of the scheduling benchmark, README): its per-node fields repeat every
// node's name and every plugin's name for each score. Here a score is a
// varint, a node's filter results an index into the distinct ones, and
// the JSON is rendered when someone asks for it.
package schedulingresult

import (
	"encoding/json"
	"math"
	"strconv"
)

// Kind says where a Field's JSON comes from.
type Kind uint8

const (
	// KindJSON: Field.Value is the field's JSON.
	KindJSON Kind = iota
	// KindFilter: Document.Filter, as {node: {plugin: result}}.
	KindFilter
	// KindRawScores: Document.Scores' raw scores, as {node: {plugin: "score"}}.
	KindRawScores
	// KindFinalScores: Document.Scores' final scores, as KindRawScores.
	KindFinalScores

	numKinds
)

// Field is one per-plugin result, under its upstream annotation name
// without the prefix.
type Field struct {
	Name string
	Kind Kind
	// PerNode fields grow with the number of nodes.
	PerNode bool
	// Value is the JSON of a KindJSON field.
	Value []byte
}

// PluginResult is what one filter plugin (or filtering extender) said of
// a node: "passed", or why not.
type PluginResult struct {
	Plugin, Result string
}

// FilterTable is the filter results of the nodes filtered, in the order
// the document lists them.
type FilterTable struct {
	Nodes []string
	// Verdicts are the distinct results of a node, each the plugins'
	// results in run order: most nodes share one.
	Verdicts [][]PluginResult
	// Of is the index in Verdicts of each node's results.
	Of []int
}

// ScoreTable is the scores of the nodes scored: for each, a raw and a
// final (normalized, weighted) score per plugin (or extender), row-major.
type ScoreTable struct {
	Nodes, Plugins []string
	Raw, Final     []int64
	// Missing marks the entries without a score (an extender that did not
	// score the node); nil when there are none.
	Missing []bool
}

// Document is the full result of one attempt.
type Document struct {
	Namespace, Name, UID string
	// Summary is the compact result's JSON.
	Summary []byte
	// Fields in the order the JSON document lists them.
	Fields []Field
	Filter FilterTable
	Scores ScoreTable
}

// AppendJSON appends the document as the simulator serves it:
// {"name", "namespace", "uid", "summary", then each field by its name}.
func (d *Document) AppendJSON(b []byte) []byte {
	b = d.appendHead(b)
	b = appendRaw(b, d.Summary)
	for i := range d.Fields {
		b = append(b, ',')
		b = appendString(b, d.Fields[i].Name)
		b = append(b, ':')
		b = d.AppendField(b, &d.Fields[i])
	}
	return append(b, '}')
}

// appendHead appends the document's JSON up to its summary.
func (d *Document) appendHead(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, d.Name)
	b = append(b, `,"namespace":`...)
	b = appendString(b, d.Namespace)
	b = append(b, `,"uid":`...)
	b = appendString(b, d.UID)
	return append(b, `,"summary":`...)
}

// AppendField appends the JSON of f, a field of d.
func (d *Document) AppendField(b []byte, f *Field) []byte {
	switch f.Kind {
	case KindFilter:
		return d.Filter.appendJSON(b)
	case KindRawScores:
		return d.Scores.appendJSON(b, d.Scores.Raw)
	case KindFinalScores:
		return d.Scores.appendJSON(b, d.Scores.Final)
	default:
		return appendRaw(b, f.Value)
	}
}

// FieldSize is the length of f's JSON when no string in it needs escaping,
// and at most that length otherwise; it costs a pass over the table, not a
// rendering. The scheduler puts the per-node fields on the Pod only while
// they fit in a budget: above it, it need not render them.
func (d *Document) FieldSize(f *Field) int {
	switch f.Kind {
	case KindFilter:
		t := &d.Filter
		verdicts := make([]int, len(t.Verdicts))
		for i, v := range t.Verdicts {
			verdicts[i] = len(appendVerdict(nil, v))
		}
		n := 2 + max(len(t.Nodes)-1, 0)
		for i, node := range t.Nodes {
			n += len(node) + 3 + verdicts[t.Of[i]] // "node":verdict
		}
		return n
	case KindRawScores, KindFinalScores:
		t := &d.Scores
		values := t.Raw
		if f.Kind == KindFinalScores {
			values = t.Final
		}
		k := len(t.Plugins)
		n := 2 + max(len(t.Nodes)-1, 0)
		for i, node := range t.Nodes {
			n += len(node) + 5 // "node":{}
			present := 0
			for j, p := range t.Plugins {
				if !t.missing(i*k + j) {
					n += len(p) + 5 + digits(values[i*k+j]) // "plugin":"score"
					present++
				}
			}
			n += max(present-1, 0)
		}
		return n
	default:
		return len(appendRaw(nil, f.Value))
	}
}

// Size is the length of d's JSON when no string in it needs escaping, and
// at most that length otherwise: a record that would render to more than
// the simulator can hold is refused before it is rendered.
func (d *Document) Size() int {
	n := len(d.appendHead(nil)) + len(appendRaw(nil, d.Summary)) + 1
	for i := range d.Fields {
		f := &d.Fields[i]
		n += 1 + len(appendString(nil, f.Name)) + 1 + d.FieldSize(f)
	}
	return n
}

func digits(v int64) int {
	n := 1
	if v < 0 {
		n++
		if v == math.MinInt64 {
			return 20
		}
		v = -v
	}
	for ; v >= 10; v /= 10 {
		n++
	}
	return n
}

func (t *FilterTable) appendJSON(b []byte) []byte {
	verdicts := make([][]byte, len(t.Verdicts))
	for i, v := range t.Verdicts {
		verdicts[i] = appendVerdict(nil, v)
	}
	b = append(b, '{')
	for i, node := range t.Nodes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, node)
		b = append(b, ':')
		b = append(b, verdicts[t.Of[i]]...)
	}
	return append(b, '}')
}

func appendVerdict(b []byte, v []PluginResult) []byte {
	b = append(b, '{')
	for i, r := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, r.Plugin)
		b = append(b, ':')
		b = appendString(b, r.Result)
	}
	return append(b, '}')
}

func (t *ScoreTable) missing(i int) bool {
	return t.Missing != nil && t.Missing[i]
}

// appendJSON appends values, Raw or Final: upstream writes scores as strings.
func (t *ScoreTable) appendJSON(b []byte, values []int64) []byte {
	k := len(t.Plugins)
	// Each plugin's key, quoted once: `"Plugin":"`.
	keys := make([][]byte, k)
	for j, p := range t.Plugins {
		keys[j] = append(appendString(nil, p), `:"`...)
	}
	b = append(b, '{')
	for i, node := range t.Nodes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, node)
		b = append(b, ":{"...)
		first := true
		for j := range k {
			if t.missing(i*k + j) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, keys[j]...)
			b = strconv.AppendInt(b, values[i*k+j], 10)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendRaw appends JSON that a field holds; none is an empty object, as
// upstream writes a result that has no entries.
func appendRaw(b, value []byte) []byte {
	if len(value) == 0 || string(value) == "null" {
		return append(b, emptyObject...)
	}
	return append(b, value...)
}

const emptyObject = "{}"

// appendString appends s as a JSON string as encoding/json writes it:
// directly when nothing in it needs escaping (node and plugin names, most
// reasons), else through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			data, _ := json.Marshal(s)
			return append(b, data...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
