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

package schedulingresult

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
)

// doc has every kind of field, an extender that scored one node of two,
// and names that need escaping.
func doc() *Document {
	return &Document{
		Namespace: "ns", Name: "web-<1>", UID: "u-1",
		Summary: []byte(`{"outcome":"Bound"}`),
		Fields: []Field{
			{Name: "prefilter-result-status", Value: []byte(`{"Fit":"success"}`)},
			{Name: "prefilter-result", PerNode: true},
			{Name: "filter-result", Kind: KindFilter, PerNode: true},
			{Name: "postfilter-result", Value: []byte("null")},
			{Name: "score-result", Kind: KindRawScores, PerNode: true},
			{Name: "finalscore-result", Kind: KindFinalScores, PerNode: true},
		},
		Filter: FilterTable{
			Nodes: []string{"node-a1", "node-a2", `node-"b"`},
			Verdicts: [][]PluginResult{
				{{"Fit", "passed"}, {"Taint", "passed"}},
				{{"Fit", "Insufficient cpu & memory"}},
			},
			Of: []int{0, 1, 0},
		},
		Scores: ScoreTable{
			Nodes:   []string{"node-a1", `node-"b"`},
			Plugins: []string{"Fit", "http://ext"},
			Raw:     []int64{10, 3, -20, 0},
			Final:   []int64{20, 30, -40, 0},
			Missing: []bool{false, false, false, true},
		},
	}
}

func TestAppendJSON(t *testing.T) {
	want := `{"name":"web-\u003c1\u003e","namespace":"ns","uid":"u-1","summary":{"outcome":"Bound"},` +
		`"prefilter-result-status":{"Fit":"success"},"prefilter-result":{},` +
		`"filter-result":{"node-a1":{"Fit":"passed","Taint":"passed"},"node-a2":{"Fit":"Insufficient cpu \u0026 memory"},"node-\"b\"":{"Fit":"passed","Taint":"passed"}},` +
		`"postfilter-result":{},` +
		`"score-result":{"node-a1":{"Fit":"10","http://ext":"3"},"node-\"b\"":{"Fit":"-20"}},` +
		`"finalscore-result":{"node-a1":{"Fit":"20","http://ext":"30"},"node-\"b\"":{"Fit":"-40"}}}`
	if got := string(doc().AppendJSON(nil)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	noExtenders := doc()
	noExtenders.Scores.Missing = nil
	for name, d := range map[string]*Document{"all kinds": doc(), "no missing scores": noExtenders, "empty": {}} {
		t.Run(name, func(t *testing.T) {
			data, err := d.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			var got Document
			if err := got.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&got, normalized(d)) {
				t.Errorf("decoded\n%+v\nwant\n%+v", got, d)
			}
			for i := range len(data) {
				if err := new(Document).UnmarshalBinary(data[:i]); !errors.Is(err, ErrMalformed) {
					t.Fatalf("the first %d of %d bytes: %v, want ErrMalformed", i, len(data), err)
				}
			}
		})
	}
}

// normalized is d as decoding returns it: empty parts nil.
func normalized(d *Document) *Document {
	out := *d
	out.Fields = slices.Clone(d.Fields)
	if len(out.Summary) == 0 {
		out.Summary = nil
	}
	for i := range out.Fields {
		if len(out.Fields[i].Value) == 0 {
			out.Fields[i].Value = nil
		}
	}
	return &out
}

func TestAppendBinaryChecksTables(t *testing.T) {
	for name, mutate := range map[string]func(*Document){
		"verdict out of range": func(d *Document) { d.Filter.Of[1] = 2 },
		"verdict per node":     func(d *Document) { d.Filter.Of = d.Filter.Of[:2] },
		"scores per node":      func(d *Document) { d.Scores.Final = d.Scores.Final[:3] },
		"missing per node":     func(d *Document) { d.Scores.Missing = d.Scores.Missing[:1] },
		"kind":                 func(d *Document) { d.Fields[0].Kind = numKinds },
	} {
		d := doc()
		mutate(d)
		if _, err := d.AppendBinary(nil); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}

func TestSize(t *testing.T) {
	plain := doc()
	plain.Name = "web-1"
	plain.Filter.Nodes[2], plain.Scores.Nodes[1] = "node-b", "node-b"
	plain.Filter.Verdicts[1][0].Result = "Insufficient cpu"
	plain.Scores.Raw[0], plain.Scores.Final[1] = math.MinInt64, math.MaxInt64
	for name, d := range map[string]*Document{"escaped names": doc(), "plain names": plain} {
		for i := range d.Fields {
			f := &d.Fields[i]
			size, got := len(d.AppendField(nil, f)), d.FieldSize(f)
			if got > size || name == "plain names" && got != size {
				t.Errorf("%s: %s: FieldSize %d, its JSON %d bytes", name, f.Name, got, size)
			}
		}
		size, got := len(d.AppendJSON(nil)), d.Size()
		if got > size || name == "plain names" && got != size {
			t.Errorf("%s: Size %d, its JSON %d bytes", name, got, size)
		}
	}
}

func FuzzUnmarshalBinary(f *testing.F) {
	for _, d := range []*Document{doc(), {}} {
		data, err := d.AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Document
		if err := d.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is no ErrMalformed", err)
			}
			return
		}
		out := d.AppendJSON(nil)
		if d.Size() > len(out) {
			t.Fatalf("Size %d above the JSON's %d bytes", d.Size(), len(out))
		}
		valid := json.Valid(d.Summary)
		for _, f := range d.Fields {
			valid = valid && (len(f.Value) == 0 || json.Valid(f.Value))
		}
		if valid && !json.Valid(out) {
			t.Fatalf("invalid JSON from valid parts: %s", out)
		}
		// What decodes encodes again, to itself.
		again, err := d.AppendBinary(nil)
		if err != nil {
			t.Fatalf("a decoded document does not encode: %v", err)
		}
		var d2 Document
		if err := d2.UnmarshalBinary(again); err != nil || !reflect.DeepEqual(&d, &d2) {
			t.Fatalf("re-encoded: %v\n%+v\n%+v", err, d, d2)
		}
	})
}

func ExampleDocument_AppendJSON() {
	d := &Document{Namespace: "default", Name: "web", UID: "1", Summary: []byte(`{"outcome":"Bound"}`),
		Fields: []Field{{Name: "filter-result", Kind: KindFilter, PerNode: true}},
		Filter: FilterTable{Nodes: []string{"n1", "n2"}, Verdicts: [][]PluginResult{{{"NodeResourcesFit", "passed"}}}, Of: []int{0, 0}}}
	fmt.Println(string(d.AppendJSON(nil)))
	// Output: {"name":"web","namespace":"default","uid":"1","summary":{"outcome":"Bound"},"filter-result":{"n1":{"NodeResourcesFit":"passed"},"n2":{"NodeResourcesFit":"passed"}}}
}
