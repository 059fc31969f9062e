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

// Package scenario runs a scenario's workload inside the simulator (a
// contract.ScenarioRun: a timeline of steps, or a recorded trace, from a
// start time common to every variant) against the inner kube-apiserver,
// and measures what the scheduler does with it (contract.ScenarioReport).
package scenario

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// ErrBusy: a run is waiting for its start or running.
var ErrBusy = errors.New("a scenario run is waiting or running; DELETE " + contract.PathScenario + " stops it")

// InvalidError is a ScenarioRun that cannot be run.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return "invalid scenario run: " + e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// Defaults of a Config.
const (
	// DefaultWorkers apply a trace's events in parallel, as the source
	// mirror's first copy writes.
	DefaultWorkers = 32
	// DefaultNodePoolTimeout bounds the wait for the server to scale a
	// NodePool.
	DefaultNodePoolTimeout = 5 * time.Minute
	// DefaultWaitTimeout bounds a wait step that sets no timeout.
	DefaultWaitTimeout = 5 * time.Minute
	// DefaultRideOut bounds how long a step or a trace event is tried
	// again while the inner control plane does not answer: a restart of
	// it by the supervisor takes seconds, more on a busy machine.
	DefaultRideOut = 2 * time.Minute
)

// Config is what a Runner runs against.
type Config struct {
	// Client reads and writes the inner cluster as its admin. Its writes
	// should not be rate limited: the trace's workers bound them, and a
	// trace replayed at 60× writes hundreds of objects a second.
	Client kubernetes.Interface
	// Dynamic and Mapper create and delete the objects of the steps, of any
	// kind the inner cluster serves.
	Dynamic dynamic.Interface
	Mapper  meta.ResettableRESTMapper
	// ResultsDir holds the scheduler's results (resultstore): the attempts
	// and the rejections by plugin are read there. Empty: they are counted
	// from what the Pods show.
	ResultsDir string
	// Clock is the real one when nil.
	Clock clock.WithTicker
	// Workers defaults to DefaultWorkers.
	Workers int
	// NodePoolTimeout defaults to DefaultNodePoolTimeout.
	NodePoolTimeout time.Duration
	// SettleInterval is how often a wait step checks; 200 ms when zero.
	SettleInterval time.Duration
	// RideOut defaults to DefaultRideOut.
	RideOut time.Duration
}

// Runner runs one ScenarioRun at a time, in the background, and reports on
// the latest.
type Runner struct {
	cfg  Config
	kick chan struct{}

	mu         sync.Mutex
	generation int64
	// latest is the current or last run; pending is it too while it waits
	// for Run to take it.
	latest, pending *run
}

// New returns a Runner; Run runs what Start accepts.
func New(cfg Config) *Runner {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.NodePoolTimeout <= 0 {
		cfg.NodePoolTimeout = DefaultNodePoolTimeout
	}
	if cfg.SettleInterval <= 0 {
		cfg.SettleInterval = 200 * time.Millisecond
	}
	if cfg.RideOut <= 0 {
		cfg.RideOut = DefaultRideOut
	}
	return &Runner{cfg: cfg, kick: make(chan struct{}, 1)}
}

// Start accepts spec, to be run by Run, and returns its report (Waiting).
// It returns an InvalidError for a run it cannot run and ErrBusy while
// another waits or runs.
func (r *Runner) Start(ctx context.Context, spec *contract.ScenarioRun) (contract.ScenarioReport, error) {
	if err := validate(spec); err != nil {
		return contract.ScenarioReport{}, &InvalidError{Err: err}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.latest != nil && !r.latest.finished() {
		return r.latest.snapshot(r.cfg.Clock.Now()), ErrBusy
	}
	r.generation++
	rn := newRun(spec, r.generation)
	r.latest, r.pending = rn, rn
	select {
	case r.kick <- struct{}{}:
	default:
	}
	klog.FromContext(ctx).Info("Scenario run accepted", "runID", spec.RunID, "generation", r.generation,
		"startTime", spec.StartTime, "steps", len(spec.Steps), "events", len(spec.Trace))
	return rn.snapshot(r.cfg.Clock.Now()), nil
}

// Stop stops the current run (Failed, "stopped") and returns the latest
// run's report; false if there has been none. A finished run stays as it
// ended.
func (r *Runner) Stop(ctx context.Context) (contract.ScenarioReport, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rn := r.latest
	if rn == nil {
		return contract.ScenarioReport{}, false
	}
	stopped := false
	if r.pending == rn {
		// Run has not taken it: it never starts.
		r.pending = nil
		rn.fail(errStopped)
		stopped = true
	}
	if rn.stop() || stopped {
		klog.FromContext(ctx).Info("Scenario run stopped", "runID", rn.spec.RunID, "generation", rn.generation)
	}
	return rn.snapshot(r.cfg.Clock.Now()), true
}

// Report is the latest run's report; false if there has been none.
func (r *Runner) Report() (contract.ScenarioReport, bool) {
	r.mu.Lock()
	rn := r.latest
	r.mu.Unlock()
	if rn == nil {
		return contract.ScenarioReport{}, false
	}
	return rn.snapshot(r.cfg.Clock.Now()), true
}

// Placements are the Pods bound now, as the latest run's informers see
// them (at its end, once it ended); false
// if there has been no run.
func (r *Runner) Placements() (contract.ScenarioPlacements, bool) {
	r.mu.Lock()
	rn := r.latest
	r.mu.Unlock()
	if rn == nil {
		return contract.ScenarioPlacements{}, false
	}
	out := contract.ScenarioPlacements{RunID: rn.spec.RunID, Generation: rn.generation, Groups: map[string]map[string]int32{}}
	if m := rn.meter(); m != nil {
		out.Groups = m.placements()
	}
	return out, true
}

// Run runs the runs Start accepts, one at a time, until ctx ends; a run
// under way when it does fails as stopped.
func (r *Runner) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			r.mu.Lock()
			if r.pending != nil {
				r.pending.fail(errShutdown)
				r.pending = nil
			}
			r.mu.Unlock()
			return
		case <-r.kick:
		}
		r.mu.Lock()
		rn := r.pending
		r.pending = nil
		r.mu.Unlock()
		if rn != nil {
			r.execute(ctx, rn)
		}
	}
}

var (
	errStopped  = errors.New("stopped")
	errShutdown = errors.New("stopped: the simulator is stopping")
)

// run is one ScenarioRun and how it stands.
type run struct {
	spec       *contract.ScenarioRun
	generation int64

	mu     sync.Mutex
	report contract.ScenarioReport
	// started is when it started running (StartTime, or later).
	started time.Time
	// stopRun cancels it; nil until it executes.
	stopRun context.CancelCauseFunc
	stopped bool
	m       *meter
	lags    lags
	// messages are the steps that timed out and the first failed event.
	messages []string
}

func newRun(spec *contract.ScenarioRun, generation int64) *run {
	return &run{spec: spec, generation: generation, report: contract.ScenarioReport{
		Phase: contract.ScenarioRunWaiting, RunID: spec.RunID, Generation: generation,
	}}
}

func (rn *run) finished() bool {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.report.Phase == contract.ScenarioRunSucceeded || rn.report.Phase == contract.ScenarioRunFailed
}

// stop cancels the run; it says whether it was still to end.
func (rn *run) stop() bool {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if rn.stopped || rn.report.Phase == contract.ScenarioRunSucceeded || rn.report.Phase == contract.ScenarioRunFailed {
		return false
	}
	rn.stopped = true
	if rn.stopRun != nil {
		rn.stopRun(errStopped)
	}
	return true
}

func (rn *run) fail(err error) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.report.Phase = contract.ScenarioRunFailed
	rn.report.Message = joinMessages(err.Error(), rn.messages)
}

func (rn *run) meter() *meter {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.m
}

// note adds a message to the report (a step that timed out).
func (rn *run) note(format string, args ...any) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.messages = append(rn.messages, fmt.Sprintf(format, args...))
	rn.report.Message = joinMessages("", rn.messages)
}

// setWaiting says in the report which NodePool scale the run waits for.
func (rn *run) setWaiting(s *contract.ScenarioRunScale) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.report.Waiting = s
}

func joinMessages(first string, rest []string) string {
	out := first
	for _, m := range rest {
		if out != "" {
			out += "; "
		}
		out += m
	}
	return out
}

// snapshot is the report as of now: while the run runs, the measures so
// far.
func (rn *run) snapshot(now time.Time) contract.ScenarioReport {
	rn.mu.Lock()
	r := rn.report
	if r.Waiting != nil {
		w := *r.Waiting
		r.Waiting = &w
	}
	m, started := rn.m, rn.started
	rn.mu.Unlock()
	if r.Phase != contract.ScenarioRunRunning {
		// Waiting has no measures yet; a finished run's are final.
		return r
	}
	r.ElapsedMilliseconds = max(now.Sub(started).Milliseconds(), 0)
	rn.lags.fill(&r)
	if m != nil {
		m.fill(&r)
	}
	return r
}
