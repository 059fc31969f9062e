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

// Package server is the simulator's HTTP API (KEP-159): health, the
// scheduler configuration, reset, the scheduling results, the scenario's
// export and import, the scenario runner, and the hop gate of a simulator
// hosted in another cluster.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/reset"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/schedconfig"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/supervisor"
)

// maxBody bounds a request body.
const maxBody = 1 << 20

// Check is one readiness condition.
type Check struct {
	Name  string
	Check func(ctx context.Context) error
}

// SchedulerConfig is the scheduler configuration in effect, and the way to
// change it.
type SchedulerConfig interface {
	// Effective is the completed configuration in effect, as JSON.
	Effective() []byte
	// Update checks data (a KubeSchedulerConfiguration in YAML or JSON),
	// makes it the configuration in effect and returns it completed; a
	// schedconfig.InvalidError means it was refused and nothing changed.
	Update(ctx context.Context, data []byte) ([]byte, error)
	// Restore makes the simulator's own configuration (its spec's) the one
	// in effect again, and says whether another was.
	Restore(ctx context.Context) (bool, error)
}

// Resetter empties the inner cluster of user objects.
type Resetter interface {
	Reset(ctx context.Context) (reset.Result, error)
}

// Config is what the server serves.
type Config struct {
	Checks          []Check
	CheckTimeout    time.Duration
	SchedulerConfig SchedulerConfig
	Resetter        Resetter
	// Processes reports the supervised children (debug endpoint).
	Processes func() []supervisor.Status
	// AllowedOrigins may make cross-origin requests.
	AllowedOrigins []*regexp.Regexp
	// SchedulingResultsDir holds the scheduler's full results (see
	// contract.PathSchedulingResults).
	SchedulingResultsDir string
	// Snapshotter serves the scenario's export, Importer its import.
	Snapshotter Snapshotter
	Importer    Importer
	// MaxImportBytes bounds an imported document; 0 means
	// contract.MaxImportBytes.
	MaxImportBytes int64
	// Source is the mirror of the simulator's source; nil when it has none.
	Source Source
	// Scenario runs scenarios' workloads (contract.PathScenario); nil
	// leaves its paths out.
	Scenario ScenarioRunner
	// Hop is the hop gate (HopProxy, contract.PathHop); nil, for a
	// simulator without a hop token, leaves its path out.
	Hop http.Handler
}

// Source is the mirror of a source cluster (spec.source).
type Source interface {
	// Status is how the mirror stands.
	Status() contract.SourceStatus
	// WriteTrace writes the changes seen on the source as JSON lines
	// (contract.TraceEvent), oldest first.
	WriteTrace(w io.Writer) error
}

// NewHandler returns the simulator server's handler.
func NewHandler(cfg Config) http.Handler {
	if cfg.CheckTimeout == 0 {
		cfg.CheckTimeout = 3 * time.Second
	}
	if cfg.MaxImportBytes == 0 {
		cfg.MaxImportBytes = contract.MaxImportBytes
	}
	s := &server{cfg: cfg}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+contract.PathHealthz, func(w http.ResponseWriter, _ *http.Request) { writeText(w, http.StatusOK, "ok") })
	mux.HandleFunc("GET "+contract.PathReadyz, s.readyz)
	mux.HandleFunc("GET "+contract.PathSchedulerConfig, s.getSchedulerConfig)
	mux.HandleFunc("PUT "+contract.PathSchedulerConfig, s.putSchedulerConfig)
	mux.HandleFunc("PUT "+contract.PathReset, s.reset)
	mux.HandleFunc("GET "+contract.PathProcesses, s.processes)
	mux.HandleFunc("GET "+contract.PathSchedulingResults+"/{namespace}/{name}", s.getSchedulingResult)
	if cfg.Snapshotter != nil {
		mux.HandleFunc("GET "+contract.PathExport, s.export)
	}
	if cfg.Importer != nil {
		mux.HandleFunc("POST "+contract.PathImport, s.importSnapshot)
		mux.HandleFunc("GET "+contract.PathImport, s.importStatus)
	}
	mux.HandleFunc("GET "+contract.PathSource, s.sourceStatus)
	mux.HandleFunc("GET "+contract.PathSourceTrace, s.sourceTrace)
	if cfg.Scenario != nil {
		mux.HandleFunc("POST "+contract.PathScenario, s.startScenario)
		mux.HandleFunc("GET "+contract.PathScenario, s.scenarioReport)
		mux.HandleFunc("DELETE "+contract.PathScenario, s.stopScenario)
		mux.HandleFunc("GET "+contract.PathScenarioPlacements, s.scenarioPlacements)
	}
	if cfg.Hop != nil {
		mux.Handle(contract.PathHop, cfg.Hop)
	}
	return cors(cfg.AllowedOrigins, mux)
}

type server struct {
	cfg Config
	// resetMu makes resets one at a time.
	resetMu sync.Mutex
}

// readyzRecheck is how often a waiting /readyz runs the checks again: the
// probe's answer follows readiness by at most this much (issue 13).
const readyzRecheck = 20 * time.Millisecond

// readyz runs every check at once and answers 200 only if all pass, with
// one line per check in the style of kube-apiserver's /readyz?verbose;
// with contract.ReadyzWaitParam it runs them again until they pass or the wait ends.
func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	var hold time.Duration
	if v := r.URL.Query().Get(contract.ReadyzWaitParam); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > contract.MaxReadyzWait {
			writeError(w, http.StatusBadRequest, fmt.Errorf("%s=%q: want a duration from 0 to %v", contract.ReadyzWaitParam, v, contract.MaxReadyzWait))
			return
		}
		hold = d
	}
	results := s.runChecks(r.Context())
	if failed(results) && hold > 0 {
		// The checks run under the request's context, not the wait's, so
		// that the last run reports why a check fails, not a cancelled wait.
		_ = wait.PollUntilContextTimeout(r.Context(), readyzRecheck, hold, false, func(context.Context) (bool, error) {
			results = s.runChecks(r.Context())
			return !failed(results), nil
		})
	}
	var b strings.Builder
	for i, c := range s.cfg.Checks {
		if err := results[i]; err != nil {
			fmt.Fprintf(&b, "[-]%s not ready: %v\n", c.Name, err)
		} else {
			fmt.Fprintf(&b, "[+]%s ok\n", c.Name)
		}
	}
	if failed(results) {
		b.WriteString("readyz check failed\n")
		writeText(w, http.StatusServiceUnavailable, b.String())
		return
	}
	b.WriteString("readyz check passed\n")
	writeText(w, http.StatusOK, b.String())
}

// runChecks runs every check at once and returns their errors in order.
func (s *server) runChecks(ctx context.Context) []error {
	results := make([]error, len(s.cfg.Checks))
	var wg sync.WaitGroup
	for i, c := range s.cfg.Checks {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, s.cfg.CheckTimeout)
			defer cancel()
			results[i] = c.Check(ctx)
		})
	}
	wg.Wait()
	return results
}

func failed(results []error) bool {
	return slices.ContainsFunc(results, func(err error) bool { return err != nil })
}

func (s *server) getSchedulerConfig(w http.ResponseWriter, _ *http.Request) {
	effective := s.cfg.SchedulerConfig.Effective()
	if effective == nil {
		writeError(w, http.StatusServiceUnavailable, errors.New("no scheduler configuration yet"))
		return
	}
	writeJSONBytes(w, http.StatusOK, effective)
}

func (s *server) putSchedulerConfig(w http.ResponseWriter, r *http.Request) {
	logger := klog.FromContext(r.Context())
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("reading the body: %w", err))
		return
	}
	effective, err := s.cfg.SchedulerConfig.Update(r.Context(), body)
	var invalid *schedconfig.InvalidError
	switch {
	case errors.As(err, &invalid):
		logger.Info("Refused a scheduler configuration", "reason", invalid.Reason)
		writeError(w, http.StatusBadRequest, err)
		return
	case err != nil:
		logger.Error(err, "Updating the scheduler configuration")
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	logger.Info("Scheduler configuration updated; kube-scheduler restarts with it")
	writeJSONBytes(w, http.StatusOK, effective)
}

func (s *server) reset(w http.ResponseWriter, r *http.Request) {
	s.resetMu.Lock()
	defer s.resetMu.Unlock()
	res, err := s.cfg.Resetter.Reset(r.Context())
	// The Pods are gone: so are their scheduling results, or a Pod of the
	// same name made after the reset would show the old one.
	if rerr := clearSchedulingResults(s.cfg.SchedulingResultsDir); rerr != nil {
		err = errors.Join(err, rerr)
	}
	// A reset starts over: the scheduler configuration too.
	if s.cfg.SchedulerConfig != nil {
		restored, rerr := s.cfg.SchedulerConfig.Restore(r.Context())
		res.SchedulerConfigurationRestored = restored
		if rerr != nil {
			err = errors.Join(err, fmt.Errorf("restoring the scheduler configuration: %w", rerr))
		}
	}
	if err != nil {
		klog.FromContext(r.Context()).Error(err, "Reset")
		writeJSON(w, http.StatusInternalServerError, struct {
			Error   string         `json:"error"`
			Deleted map[string]int `json:"deleted"`
		}{err.Error(), res.Deleted})
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// errNoSource answers the source's paths on a simulator without one.
var errNoSource = errors.New("this simulator has no source")

func (s *server) sourceStatus(w http.ResponseWriter, _ *http.Request) {
	if s.cfg.Source == nil {
		writeError(w, http.StatusNotFound, errNoSource)
		return
	}
	writeJSON(w, http.StatusOK, s.cfg.Source.Status())
}

func (s *server) sourceTrace(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Source == nil {
		writeError(w, http.StatusNotFound, errNoSource)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	if err := s.cfg.Source.WriteTrace(w); err != nil {
		klog.FromContext(r.Context()).V(2).Info("Writing the source's trace", "err", err)
	}
}

func (s *server) processes(w http.ResponseWriter, _ *http.Request) {
	var statuses []supervisor.Status
	if s.cfg.Processes != nil {
		statuses = s.cfg.Processes()
	}
	writeJSON(w, http.StatusOK, statuses)
}

// cors lets the allowed origins call the API from a browser: it answers
// their preflight requests and marks their responses.
func cors(allowed []*regexp.Regexp, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Add("Vary", "Origin")
		ok := false
		for _, re := range allowed {
			if re.MatchString(origin) {
				ok = true
				break
			}
		}
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if !ok {
			if preflight {
				writeText(w, http.StatusForbidden, "origin not allowed")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		if preflight {
			h.Set("Access-Control-Allow-Methods", "GET, PUT, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeText(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func writeJSONBytes(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSONBytes(w, status, body)
}

// writeError answers {"error": "..."}.
func writeError(w http.ResponseWriter, status int, err error) {
	body, _ := json.Marshal(map[string]string{"error": err.Error()})
	writeJSONBytes(w, status, body)
}
