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
	"encoding/json"
	"sync"

	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/recorder"
	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// Annotation keys (see schedulingresult: the simulator reads them too).
const (
	UpstreamPrefix    = schedulingresult.AnnotationPrefix
	SelectedNode      = schedulingresult.SelectedNodeAnnotation
	ResultHistory     = schedulingresult.ResultHistoryAnnotation
	SummaryAnnotation = schedulingresult.SummaryAnnotation
)

// Budgets, in bytes of annotation values. A Pod's annotations may hold
// 256 KiB in all (apimachinery's TotalAnnotationSizeLimitB), and the user's
// own count too: the per-node results go on the Pod only while they fit in
// perNodeBudget; the full result is always in the Store. Every later
// write of a bound Pod carries them, to every watcher, and each copy of
// the Pod in memory holds them (kube-apiserver's watch cache, the
// informers of the scheduler, kube-controller-manager and kwok): at 50
// Nodes (~20 KiB of them, ~0.4 KiB a Node) a replay of 10,000 Pod events
// at 60x used 14% more of the control plane's CPU with them and twice its
// peak RSS (3.3 GiB against 1.5; docs/performance.md). So they go on the
// Pods of small clusters, a few dozen Nodes, the ones read Pod by Pod.
const (
	perNodeBudget = 16 << 10
	historyBudget = 32 << 10
	maxHistory    = 5
)

// rendered is an attempt's result: its Document, encoded for the Store,
// and the annotations' values, each field's JSON.
type rendered struct {
	res *recorder.Result
	doc *schedulingresult.Document
	// encoded is the Document as the Store keeps it; valid until release.
	encoded *[]byte
	// values are the fields' JSON by name: the per-node ones only when
	// they fit in perNodeBudget (perNodeFit).
	values     map[string][]byte
	perNodeFit bool
}

// encodeBuffers are the Documents' encodings, reused: at 5,000 nodes one
// takes tens of KiB.
var encodeBuffers = sync.Pool{New: func() any { return new([]byte) }}

func render(res *recorder.Result) (*rendered, error) {
	doc, err := res.Document()
	if err != nil {
		return nil, err
	}
	r := &rendered{res: res, doc: doc, values: make(map[string][]byte, len(doc.Fields)), encoded: encodeBuffers.Get().(*[]byte)}
	if *r.encoded, err = doc.AppendBinary((*r.encoded)[:0]); err != nil {
		r.release()
		return nil, err
	}
	// The per-node fields are rendered for the Pod only when they may fit:
	// at thousands of nodes they do not, and rendering them took more
	// than the rest of recording (README, Scheduling).
	size := 0
	for i := range doc.Fields {
		if f := &doc.Fields[i]; f.PerNode && size <= perNodeBudget {
			size += doc.FieldSize(f)
		}
	}
	r.perNodeFit = size <= perNodeBudget
	size = 0
	for i := range doc.Fields {
		f := &doc.Fields[i]
		if f.PerNode && !r.perNodeFit {
			continue
		}
		v := doc.AppendField(nil, f)
		r.values[f.Name] = v
		if f.PerNode {
			size += len(v)
		}
	}
	r.perNodeFit = r.perNodeFit && size <= perNodeBudget
	return r, nil
}

// document is the Document encoded, as the Store keeps it. It is valid
// until release.
func (r *rendered) document() []byte {
	return *r.encoded
}

// release hands the encoding's buffer back; r is unusable after.
func (r *rendered) release() {
	if r.encoded != nil && cap(*r.encoded) <= 16<<20 {
		encodeBuffers.Put(r.encoded)
	}
	r.encoded, r.values = nil, nil
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
	for _, f := range r.doc.Fields {
		k := UpstreamPrefix + f.Name
		if f.PerNode && !r.perNodeFit {
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
	summary := string(r.doc.Summary)
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
	for _, f := range r.doc.Fields {
		if f.PerNode {
			continue
		}
		if v, ok := prev[UpstreamPrefix+f.Name]; ok {
			entry[UpstreamPrefix+f.Name] = v
		}
	}
	return entry
}
