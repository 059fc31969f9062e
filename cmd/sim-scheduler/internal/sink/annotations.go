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
	"sync"

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

// rendered is an attempt's result as JSON: the full document, each field
// encoded once into it, and the annotations taking their values from it.
type rendered struct {
	res    *recorder.Result
	fields []recorder.Field
	// doc is the full result, as the simulator's API serves it; values
	// are the fields' JSON inside it.
	doc     *bytes.Buffer
	values  map[string][]byte
	summary []byte
}

// docBuffers are documents' buffers, reused: a document at 5,000 nodes
// takes hundreds of KiB, and growing one for every attempt costs more
// than writing it.
var docBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func render(res *recorder.Result) (*rendered, error) {
	r := &rendered{res: res, fields: res.Fields(), values: make(map[string][]byte, 16)}
	var err error
	if r.summary, err = json.Marshal(res.Summary); err != nil {
		return nil, err
	}
	meta, err := json.Marshal(map[string]string{"namespace": res.Namespace, "name": res.Name, "uid": res.UID})
	if err != nil {
		return nil, err
	}
	b := docBuffers.Get().(*bytes.Buffer)
	b.Reset()
	r.doc = b
	b.Write(meta[:len(meta)-1])
	b.WriteString(`,"summary":`)
	b.Write(r.summary)
	offsets := make([][2]int, len(r.fields))
	for i, f := range r.fields {
		b.WriteString(`,"`)
		b.WriteString(f.Name) // annotation names need no escaping
		b.WriteString(`":`)
		start := b.Len()
		if err := f.Write(b); err != nil {
			r.release()
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if string(b.Bytes()[start:]) == "null" {
			b.Truncate(start)
			b.WriteString("{}")
		}
		offsets[i] = [2]int{start, b.Len()}
	}
	b.WriteByte('}')
	// Only now, the buffer no longer growing, do slices of it stay valid.
	for i, f := range r.fields {
		r.values[f.Name] = b.Bytes()[offsets[i][0]:offsets[i][1]]
	}
	return r, nil
}

// document is the full result, as the simulator's API serves it. It is
// valid until release.
func (r *rendered) document() []byte {
	return r.doc.Bytes()
}

// release hands the document's buffer back; r is unusable after.
func (r *rendered) release() {
	if r.doc != nil && r.doc.Cap() <= 16<<20 {
		docBuffers.Put(r.doc)
	}
	r.doc, r.values = nil, nil
}

// annotations is the merge patch of the Pod's annotations, given the
// annotations the Pod has now (prev). Per-node keys of a previous attempt
// that this one cannot write are removed (nil). The top-level keys are this
// attempt; result-history holds the Pod's earlier ones, newest first, each
// as the Pod's annotations showed it (all but the per-node keys): a Pod
// bound at its first attempt, the common case, carries no history, and so
// every write of it, the Binding's first, carries a third fewer bytes
// (1.9 KB less of a 5.5 KB Pod bound at 5,000 nodes).
func (r *rendered) annotations(prev map[string]string) (map[string]*string, error) {
	out := map[string]*string{}
	size := 0
	for _, f := range r.fields {
		if f.PerNode {
			size += len(r.values[f.Name])
		}
	}
	for _, f := range r.fields {
		k := UpstreamPrefix + f.Name
		if f.PerNode && size > perNodeBudget {
			out[k] = nil
			continue
		}
		v := string(r.values[f.Name])
		out[k] = &v
	}
	if r.res.Summary.Outcome == string(recorder.Bound) {
		node := r.res.Summary.SelectedNode
		out[SelectedNode] = &node
	} else {
		out[SelectedNode] = nil
	}
	summary := string(r.summary)
	out[SummaryAnnotation] = &summary

	var history []map[string]string
	_ = json.Unmarshal([]byte(prev[ResultHistory]), &history) // a foreign or broken history starts again
	if entry := r.previous(prev); entry != nil {
		history = append([]map[string]string{entry}, history...)
	}
	if len(history) > maxHistory {
		history = history[:maxHistory]
	}
	// The entries are copies of what the Pod's annotations held, which its
	// owner may have written: the oldest go until the history fits, all of
	// them if one alone does not, so that no annotation the Pod was given
	// can push its Binding past the annotation size limit.
	for len(history) > 0 {
		b, err := json.Marshal(history)
		if err != nil {
			return nil, err
		}
		if len(b) <= historyBudget {
			h := string(b)
			out[ResultHistory] = &h
			return out, nil
		}
		history = history[:len(history)-1]
	}
	if _, ok := prev[ResultHistory]; ok {
		out[ResultHistory] = nil
	}
	return out, nil
}

// previous is the attempt that the Pod's annotations show now, as a
// history entry: its summary, selected node and upstream keys but the
// per-node ones. nil when the Pod shows none.
func (r *rendered) previous(prev map[string]string) map[string]string {
	summary, ok := prev[SummaryAnnotation]
	if !ok {
		return nil
	}
	entry := map[string]string{SummaryAnnotation: summary}
	if node, ok := prev[SelectedNode]; ok {
		entry[SelectedNode] = node
	}
	for _, f := range r.fields {
		if f.PerNode {
			continue
		}
		if v, ok := prev[UpstreamPrefix+f.Name]; ok {
			entry[UpstreamPrefix+f.Name] = v
		}
	}
	return entry
}
