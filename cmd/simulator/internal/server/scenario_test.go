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

package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/scenario"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// TestScenario drives the scenario paths against a Runner whose runs are
// never taken (no Run): each stays Waiting until stopped.
func TestScenario(t *testing.T) {
	h := NewHandler(Config{Scenario: scenario.New(scenario.Config{})})
	run := `{"runID":"uid-1","startTime":"2030-01-01T00:00:00Z","durationMilliseconds":1000,
		"steps":[{"atMilliseconds":0,"wait":{"for":"PodsSettled","timeoutMilliseconds":100}}]}`
	steps := []struct {
		name, method, path, body string
		wantStatus               int
		// wantPhase and wantGeneration of the answered report, if any.
		wantPhase      string
		wantGeneration int64
		wantError      string
	}{
		{name: "no run yet", method: http.MethodGet, path: contract.PathScenario, wantStatus: http.StatusNotFound, wantError: "no scenario"},
		{name: "no placements yet", method: http.MethodGet, path: contract.PathScenarioPlacements, wantStatus: http.StatusNotFound},
		{name: "nothing to stop", method: http.MethodDelete, path: contract.PathScenario, wantStatus: http.StatusNotFound},
		{name: "not JSON", method: http.MethodPost, path: contract.PathScenario, body: `{"runID":`, wantStatus: http.StatusBadRequest, wantError: "decoding"},
		{name: "invalid", method: http.MethodPost, path: contract.PathScenario, body: `{"steps":[{"atMilliseconds":0}]}`,
			wantStatus: http.StatusBadRequest, wantError: "steps[0]: 0 of create, delete, scale and wait"},
		{name: "accepted", method: http.MethodPost, path: contract.PathScenario, body: run, wantStatus: http.StatusAccepted,
			wantPhase: contract.ScenarioRunWaiting, wantGeneration: 1},
		{name: "report", method: http.MethodGet, path: contract.PathScenario, wantStatus: http.StatusOK,
			wantPhase: contract.ScenarioRunWaiting, wantGeneration: 1},
		{name: "busy", method: http.MethodPost, path: contract.PathScenario, body: run, wantStatus: http.StatusConflict, wantError: "waiting or running"},
		{name: "placements", method: http.MethodGet, path: contract.PathScenarioPlacements, wantStatus: http.StatusOK},
		{name: "stopped", method: http.MethodDelete, path: contract.PathScenario, wantStatus: http.StatusOK,
			wantPhase: contract.ScenarioRunFailed, wantGeneration: 1},
		{name: "another run", method: http.MethodPost, path: contract.PathScenario, body: run, wantStatus: http.StatusAccepted,
			wantPhase: contract.ScenarioRunWaiting, wantGeneration: 2},
	}
	for _, s := range steps {
		status, _, body := do(t, h, s.method, s.path, s.body, nil)
		if status != s.wantStatus {
			t.Fatalf("%s: %s %s = %d %s, want %d", s.name, s.method, s.path, status, body, s.wantStatus)
		}
		if s.wantError != "" && !strings.Contains(body, s.wantError) {
			t.Errorf("%s: %s, want an error with %q", s.name, body, s.wantError)
		}
		if s.wantPhase == "" {
			continue
		}
		var r contract.ScenarioReport
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if r.Phase != s.wantPhase || r.Generation != s.wantGeneration || r.RunID != "uid-1" {
			t.Errorf("%s: phase %s, generation %d, runID %q; want %s, %d, uid-1", s.name, r.Phase, r.Generation, r.RunID, s.wantPhase, s.wantGeneration)
		}
		if r.Phase == contract.ScenarioRunFailed && r.Message != "stopped" {
			t.Errorf("%s: message %q, want stopped", s.name, r.Message)
		}
	}
}

func TestScenarioLeftOut(t *testing.T) {
	if status, _, body := do(t, NewHandler(Config{}), http.MethodGet, contract.PathScenario, "", nil); status != http.StatusNotFound {
		t.Errorf("GET %s without a runner = %d %s, want 404", contract.PathScenario, status, body)
	}
}
