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
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

// fakeExtender is an HTTP scheduler extender on loopback: its filter
// rejects n2, its prioritizer gives n1 3 and every other node 1.
func fakeExtender(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /filter", func(w http.ResponseWriter, r *http.Request) {
		var args extenderv1.ExtenderArgs
		if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res := extenderv1.ExtenderFilterResult{Nodes: &v1.NodeList{}, FailedNodes: extenderv1.FailedNodesMap{}}
		for _, n := range args.Nodes.Items {
			if n.Name == "n2" {
				res.FailedNodes[n.Name] = "the extender keeps n2"
				continue
			}
			res.Nodes.Items = append(res.Nodes.Items, n)
		}
		_ = json.NewEncoder(w).Encode(&res)
	})
	mux.HandleFunc("POST /prioritize", func(w http.ResponseWriter, r *http.Request) {
		var args extenderv1.ExtenderArgs
		if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		list := extenderv1.HostPriorityList{}
		for _, n := range args.Nodes.Items {
			score := int64(1)
			if n.Name == "n1" {
				score = 3
			}
			list = append(list, extenderv1.HostPriority{Host: n.Name, Score: score})
		}
		_ = json.NewEncoder(w).Encode(&list)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// An extender's per-node results are recorded like a plugin's: the nodes
// its filter rejected and why, its scores and weighted final scores.
func TestExtenderResults(t *testing.T) {
	url := fakeExtender(t)
	ext, err := scheduler.NewHTTPExtender(&config.Extender{URLPrefix: url, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 5})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, ext)
	a := e.attempt(t, newPod("web", map[string]string{"zone": "a"}, nil), nil)
	if a.Outcome != Bound {
		t.Fatalf("outcome %s (%s), want %s", a.Outcome, a.Message, Bound)
	}
	taint := "node(s) had untolerated taint(s)"
	wantFilter := map[string]map[string]string{
		"n1": {"Zone": Passed, names.TaintToleration: Passed, url: Passed},
		"n2": {"Zone": Passed, names.TaintToleration: Passed, url: "the extender keeps n2"},
		"n3": {"Zone": "zone mismatch"},
		"n4": {"Zone": Passed, names.TaintToleration: taint},
	}
	if d := cmp.Diff(wantFilter, a.FilterResults()); d != "" {
		t.Errorf("filter results (-want +got):\n%s", d)
	}
	// n1 alone is left: scored by the plugins and the extender.
	wantRaw := map[string]map[string]int64{"n1": {"Index": 10, names.TaintToleration: 0, url: 3}}
	if d := cmp.Diff(wantRaw, a.RawScores()); d != "" {
		t.Errorf("raw scores (-want +got):\n%s", d)
	}
	// The final scores are the ones the scheduler adds up: the extender's
	// times its weight, scaled to the plugins' range.
	if d := cmp.Diff(e.scores, a.FinalScores()); d != "" {
		t.Errorf("final scores (-scheduler +recorded):\n%s", d)
	}
	if got := a.FinalScores()["n1"][url]; got != 3*5*10 {
		t.Errorf("extender final score %d, want %d", got, 3*5*10)
	}
	checkDocument(t, a)
	res := a.Result()
	wantFailures := []FilterFailure{
		{Plugin: names.TaintToleration, Reason: taint, Nodes: 1},
		{Plugin: "Zone", Reason: "zone mismatch", Nodes: 1},
		{Plugin: url, Reason: "the extender keeps n2", Nodes: 1},
	}
	if d := cmp.Diff(wantFailures, res.Summary.FilterFailures); d != "" {
		t.Errorf("filter failures (-want +got):\n%s", d)
	}
	if got := fieldJSON(t, res, "filter-result"); !jsonEqual(t, got, mustJSON(t, wantFilter)) {
		t.Errorf("filter-result %s", got)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
