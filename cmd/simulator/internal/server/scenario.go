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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/scenario"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// ScenarioRunner runs a scenario's workload in the background
// (scenario.Runner).
type ScenarioRunner interface {
	// Start accepts a run; scenario.ErrBusy while another waits or runs,
	// a scenario.InvalidError for one it cannot run.
	Start(ctx context.Context, run *contract.ScenarioRun) (contract.ScenarioReport, error)
	// Stop stops the current run; false if there has been none.
	Stop(ctx context.Context) (contract.ScenarioReport, bool)
	// Report and Placements are the latest run's; false if there has been
	// none.
	Report() (contract.ScenarioReport, bool)
	Placements() (contract.ScenarioPlacements, bool)
}

var errNoScenarioRun = errors.New("no scenario has run on this simulator")

// startScenario accepts a ScenarioRun (202 with its report).
func (s *server) startScenario(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, contract.MaxScenarioRun))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("the scenario run is over %d bytes", contract.MaxScenarioRun))
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("reading the body: %w", err))
		return
	}
	run := &contract.ScenarioRun{}
	if err := json.Unmarshal(body, run); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("decoding the scenario run: %w", err))
		return
	}
	report, err := s.cfg.Scenario.Start(r.Context(), run)
	var invalid *scenario.InvalidError
	switch {
	case err == nil:
		writeJSON(w, http.StatusAccepted, report)
	case errors.Is(err, scenario.ErrBusy):
		writeError(w, http.StatusConflict, err)
	case errors.As(err, &invalid):
		writeError(w, http.StatusBadRequest, err)
	default:
		klog.FromContext(r.Context()).Error(err, "Starting a scenario run")
		writeError(w, http.StatusInternalServerError, err)
	}
}

func (s *server) scenarioReport(w http.ResponseWriter, _ *http.Request) {
	report, ok := s.cfg.Scenario.Report()
	if !ok {
		writeError(w, http.StatusNotFound, errNoScenarioRun)
		return
	}
	writeJSON(w, http.StatusOK, report)
}

// stopScenario stops the current run and answers the report; a run that
// ended already stays as it ended.
func (s *server) stopScenario(w http.ResponseWriter, r *http.Request) {
	report, ok := s.cfg.Scenario.Stop(r.Context())
	if !ok {
		writeError(w, http.StatusNotFound, errNoScenarioRun)
		return
	}
	writeJSON(w, http.StatusOK, report)
}

func (s *server) scenarioPlacements(w http.ResponseWriter, _ *http.Request) {
	p, ok := s.cfg.Scenario.Placements()
	if !ok {
		writeError(w, http.StatusNotFound, errNoScenarioRun)
		return
	}
	writeJSON(w, http.StatusOK, p)
}
