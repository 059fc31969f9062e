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

package sink

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/recorder"
)

// Annotation keys. The upstream ones are kube-scheduler-simulator's, so that
// its tools read our Pods; SummaryAnnotation is the compact form, written
// always.
const (
	UpstreamPrefix    = "kube-scheduler-simulator.sigs.k8s.io/"
	SelectedNode      = UpstreamPrefix + "selected-node"
	ResultHistory     = UpstreamPrefix + "result-history"
	SummaryAnnotation = "sim.x-k8s.io/scheduling-result"
)

// Budgets, in bytes of annotation values. A Pod's annotations may hold
// 256 KiB in all (apimachinery's TotalAnnotationSizeLimitB), and the user's
// own count too: the per-node results go on the Pod only while they fit in
// perNodeBudget; the full result is always in the Store.
const (
	perNodeBudget = 96 << 10
	historyBudget = 32 << 10
	maxHistory    = 5
)

// rendered is an attempt's result as JSON, each field encoded once for
// both the annotations and the stored document.
type rendered struct {
	res     *recorder.Result
	fields  []recorder.Field
	values  map[string][]byte
	summary []byte
}

func render(res *recorder.Result) (*rendered, error) {
	r := &rendered{res: res, fields: res.Fields(), values: map[string][]byte{}}
	for _, f := range r.fields {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		v := b.Bytes()
		if string(v) == "null" {
			v = []byte("{}")
		}
		r.values[f.Name] = v
	}
	var err error
	r.summary, err = json.Marshal(res.Summary)
	return r, err
}

// document is the full result, as the simulator's API serves it.
func (r *rendered) document() ([]byte, error) {
	meta, err := json.Marshal(map[string]string{"namespace": r.res.Namespace, "name": r.res.Name, "uid": r.res.UID})
	if err != nil {
		return nil, err
	}
	size := len(meta) + len(r.summary) + 16
	for _, v := range r.values {
		size += len(v) + 32
	}
	var b bytes.Buffer
	b.Grow(size)
	b.Write(meta[:len(meta)-1])
	b.WriteString(`,"summary":`)
	b.Write(r.summary)
	for _, f := range r.fields {
		fmt.Fprintf(&b, ",%q:", f.Name)
		b.Write(r.values[f.Name])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// annotations is the merge patch of the Pod's annotations, given the
// history the Pod has now. Per-node keys of a previous attempt that this
// one cannot write are removed (nil).
func (r *rendered) annotations(prevHistory string) (map[string]*string, error) {
	out := map[string]*string{}
	size := 0
	for _, f := range r.fields {
		if f.PerNode {
			size += len(r.values[f.Name])
		}
	}
	// entry is this attempt in the history: everything but the per-node keys.
	entry := map[string]string{SummaryAnnotation: string(r.summary)}
	for _, f := range r.fields {
		k, v := UpstreamPrefix+f.Name, string(r.values[f.Name])
		if f.PerNode {
			if size > perNodeBudget {
				out[k] = nil
				continue
			}
		} else {
			entry[k] = v
		}
		out[k] = &v
	}
	if r.res.Summary.Outcome == string(recorder.Bound) {
		node := r.res.Summary.SelectedNode
		out[SelectedNode] = &node
		entry[SelectedNode] = node
	} else {
		out[SelectedNode] = nil
	}
	summary := string(r.summary)
	out[SummaryAnnotation] = &summary

	var prev []map[string]string
	_ = json.Unmarshal([]byte(prevHistory), &prev) // a foreign or broken history starts again
	history := append([]map[string]string{entry}, prev...)
	if len(history) > maxHistory {
		history = history[:maxHistory]
	}
	for {
		b, err := json.Marshal(history)
		if err != nil {
			return nil, err
		}
		if len(b) <= historyBudget || len(history) == 1 {
			h := string(b)
			out[ResultHistory] = &h
			return out, nil
		}
		history = history[:len(history)-1]
	}
}
