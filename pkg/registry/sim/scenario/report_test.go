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

package scenario

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

type getter map[string]runtime.Object

func (g getter) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if o, ok := g[name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{}, name)
}

// runners answers each simulator's report; it records who was asked.
type runners struct {
	reports map[string]contract.ScenarioReport
	asked   []string
}

func (r *runners) Call(_ context.Context, t inner.Target, method, path string, _ []byte, _ int, _ int64) ([]byte, error) {
	r.asked = append(r.asked, t.Name)
	if method != http.MethodGet || path != contract.PathScenario {
		return nil, &inner.CallError{Method: method, Path: path, Code: http.StatusNotFound}
	}
	rep, ok := r.reports[t.Name]
	if !ok {
		return nil, &inner.CallError{Method: method, Path: path, Code: http.StatusNotFound}
	}
	return json.Marshal(rep)
}

func TestReport(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	scn := &sim.Scenario{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "bp", UID: "scn"},
		Spec:       sim.ScenarioSpec{Variants: []sim.ScenarioVariant{{Name: "least"}, {Name: "most"}}},
		Status: sim.ScenarioStatus{Phase: sim.ScenarioSucceeded, Variants: []sim.ScenarioVariantStatus{
			{Name: "least", SimulatorName: "bp-least", NodesUsed: 9},
			{Name: "most", SimulatorName: "bp-most", NodesUsed: 6},
			// status names a simulator the scenario does not run in: never asked.
			{Name: "stranger", SimulatorName: "someone-elses"},
		}},
	}
	owner := metav1.OwnerReference{APIVersion: "sim.x-k8s.io/v1alpha1", Kind: "Scenario", Name: "bp", UID: "scn", Controller: ptr.To(true)}
	available := func(name string, owned bool) *sim.Simulator {
		s := &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name, UID: types.UID("uid-" + name)}, Status: sim.SimulatorStatus{Phase: sim.SimulatorAvailable}}
		if owned {
			s.OwnerReferences = []metav1.OwnerReference{owner}
		}
		return s
	}
	sample := []contract.ScenarioSample{{ElapsedMilliseconds: 1000, CPUPercent: 40, PodsPending: 3}, {ElapsedMilliseconds: 2000, CPUPercent: 60}}
	rs := &runners{reports: map[string]contract.ScenarioReport{
		"bp-least":      {RunID: "scn", Samples: sample},
		"bp-most":       {RunID: "an-older-run", Samples: sample},
		"someone-elses": {RunID: "scn", Samples: sample},
	}}
	rest := NewReportREST(getter{"bp": scn},
		getter{"bp-least": available("bp-least", true), "bp-most": available("bp-most", true), "someone-elses": available("someone-elses", false)},
		scheme, rs)

	get := func(path string) (*httptest.ResponseRecorder, error) {
		h, err := rest.Connect(t.Context(), "bp", &sim.SimulatorProxyOptions{Path: path}, nil)
		if err != nil {
			return nil, err
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
		return w, nil
	}
	w, err := get("")
	if err != nil {
		t.Fatal(err)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %s", ct)
	}
	var got struct {
		Variants []struct {
			Name    string                    `json:"name"`
			Samples []contract.ScenarioSample `json:"samples"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, v := range got.Variants {
		// Only least's run is this scenario's, in a simulator it runs in.
		if want := map[string]int{"least": 2}[v.Name]; len(v.Samples) != want {
			t.Errorf("variant %s has %d samples, want %d", v.Name, len(v.Samples), want)
		}
	}
	for _, name := range rs.asked {
		if name == "someone-elses" {
			t.Error("the report asked a simulator the scenario does not run in")
		}
	}

	w, err = get("markdown")
	if err != nil || !strings.Contains(w.Body.String(), "| least") {
		t.Errorf("markdown: %v\n%s", err, w.Body.String())
	}
	w, err = get("svg/allocation")
	if err != nil || !strings.HasPrefix(w.Header().Get("Content-Type"), "image/svg+xml") || !strings.Contains(w.Body.String(), "<svg") {
		t.Errorf("svg: %v %v", err, w.Header())
	}
	// The web view shows the plots as images of the page's origin: a plot
	// opened on its own must run nothing either.
	if csp := w.Header().Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'") || strings.Contains(csp, "script") ||
		w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("svg headers: %v, want a policy of default-src 'none' and nosniff", w.Header())
	}
	for _, bad := range []string{"svg", "svg/nope", "pdf", "json/x"} {
		if _, err := get(bad); !apierrors.IsBadRequest(err) {
			t.Errorf("report/%s: %v, want 400", bad, err)
		}
	}
}
