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

// Package sharedruntime runs kube-apiserver, kube-controller-manager, kwok
// and sim-scheduler in one Go runtime: one process instead of four, so that
// their code, runtime and timers are there once (issue 37: an idle
// simulator's memory and CPU). Each component is still restarted on its own
// when it returns; a component that ends the process (a panic, klog.Fatal,
// os.Exit) is restarted with the others by the simulator's supervisor, which
// restarts the process.
package sharedruntime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/hold"
)

// Separator ends one component's arguments on the command line:
// NAME ARGS... --- NAME ARGS... .
const Separator = "---"

// Split reads the command line NAME ARGS... --- NAME ARGS... into each
// component's arguments, refusing names not in known and names given twice.
func Split(args []string, known []string) (map[string][]string, error) {
	out := map[string][]string{}
	for len(args) > 0 {
		name := args[0]
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("unknown component %q: want one of %v", name, known)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("component %q given twice", name)
		}
		rest := args[1:]
		end := slices.Index(rest, Separator)
		if end < 0 {
			end = len(rest)
		}
		out[name] = slices.Clone(rest[:end])
		args = rest[min(end+1, len(rest)):]
	}
	return out, nil
}

// Component is one program run in the shared runtime.
type Component struct {
	Name string
	// Run runs it until ctx is done, or it fails. Called again to restart.
	Run func(ctx context.Context) error
	// Server components stop after all the others, so that their clients
	// have gone first (kube-apiserver exits at once with no watch to drain).
	// One that ends on its own ends the process: kube-apiserver's state
	// (metrics, admission registries, its ports) is its process's, and its
	// clients reconnect to the one the supervisor starts.
	Server bool
	// Wait, when set, runs before every start; the component starts once
	// it returns nil.
	Wait func(ctx context.Context) error
}

// The delay before a failed component's restart doubles from firstDelay
// up to maxDelay; a component that ran resetAfter starts again from
// firstDelay. The process gives up and exits, for the simulator's
// supervisor to restart it whole, when a component fails maxFailures times
// in a row each within resetAfter (what its process held may be in the
// way of its next start), or does not return within stopWait of a
// restart.
var (
	firstDelay  = time.Second
	maxDelay    = 30 * time.Second
	resetAfter  = time.Minute
	maxFailures = 5
	stopWait    = time.Minute
)

// Runtime runs components until its context is done.
type Runtime struct {
	components []Component
	restart    map[string]chan struct{}
	holds      map[string]*hold.Gate
	// exit ends the process; tests replace it.
	exit func(logger klog.Logger, err error)
}

// New returns a runtime for components.
func New(components ...Component) *Runtime {
	r := &Runtime{components: components, restart: map[string]chan struct{}{}, holds: map[string]*hold.Gate{}, exit: exitProcess}
	for _, c := range components {
		r.restart[c.Name] = make(chan struct{}, 1)
		if !c.Server {
			r.holds[c.Name] = hold.NewGate()
		}
	}
	return r
}

// Hold stops component name and keeps it from starting until release is
// called, so that what it watches can change while it does not act (an
// import writes Pods and the workloads that own them: a
// kube-controller-manager running then may see a workload before its Pods
// and make more). It returns once the component has returned, or with
// ctx's error, released. Holds nest: the component starts again, at once,
// when the last is released. A server cannot be held.
func (r *Runtime) Hold(ctx context.Context, name string) (release func(), err error) {
	h, ok := r.holds[name]
	if !ok {
		if _, known := r.restart[name]; known {
			return nil, fmt.Errorf("component %q: %w", name, errServer)
		}
		return nil, &unknownComponentError{name: name}
	}
	return h.Hold(ctx)
}

// errServer is Hold's error for a server component.
var errServer = errors.New("it serves the others: it cannot be held")

// unknownComponentError is Hold's error for a name no component has.
type unknownComponentError struct{ name string }

func (e *unknownComponentError) Error() string { return fmt.Sprintf("no component %q", e.name) }

// startWhenReleased waits until c is not held, and marks it running in the
// same step (a Hold then waits for it to return); or returns ctx's error.
func (r *Runtime) startWhenReleased(ctx context.Context, logger klog.Logger, c Component) error {
	h := r.holds[c.Name]
	if h == nil {
		return nil
	}
	waited, err := h.Start(ctx, func() { logger.Info("Component held") })
	if waited && err == nil {
		logger.Info("Component released")
	}
	return err
}

// stopForHold receives when a hold asks running c to stop; nil (never)
// for a component that cannot be held.
func (r *Runtime) stopForHold(c Component) <-chan struct{} {
	if h := r.holds[c.Name]; h != nil {
		return h.StopRequested()
	}
	return nil
}

// stopped records that c's run has returned.
func (r *Runtime) stopped(c Component) {
	if h := r.holds[c.Name]; h != nil {
		h.Stopped()
	}
}

// Restart asks for component name to be stopped and started again, at once.
// It does not wait.
func (r *Runtime) Restart(name string) error {
	ch, ok := r.restart[name]
	if !ok {
		return fmt.Errorf("no component %q", name)
	}
	select {
	case ch <- struct{}{}:
	default:
	}
	return nil
}

// Run runs every component, each restarted when it returns, until ctx is
// done; then it stops the clients, then the servers, and returns.
func (r *Runtime) Run(ctx context.Context) {
	serverCtx, stopServers := context.WithCancel(context.WithoutCancel(ctx))
	defer stopServers()
	var clients, servers sync.WaitGroup
	for _, c := range r.components {
		cctx, wg := ctx, &clients
		if c.Server {
			cctx, wg = serverCtx, &servers
		}
		wg.Go(func() { r.keep(cctx, c) })
	}
	<-ctx.Done()
	clients.Wait()
	stopServers()
	servers.Wait()
}

// keep runs c until ctx is done, again after a backoff when it returns, and
// at once when a restart is asked for.
func (r *Runtime) keep(ctx context.Context, c Component) {
	logger := klog.FromContext(ctx).WithValues("component", c.Name)
	delay, failures := firstDelay, 0
	for {
		if c.Wait != nil {
			if err := c.Wait(ctx); err != nil {
				logger.Info("Component not started", "err", err)
				return
			}
		}
		if err := r.startWhenReleased(ctx, logger, c); err != nil {
			logger.Info("Component not started", "err", err)
			return
		}
		// The component about to start reads the latest configuration: an
		// earlier restart request is satisfied by it.
		select {
		case <-r.restart[c.Name]:
		default:
		}
		runCtx, cancel := context.WithCancel(klog.NewContext(ctx, logger))
		done := make(chan error, 1)
		started := time.Now()
		logger.Info("Starting component")
		go func() { done <- c.Run(runCtx) }()
		var err error
		exited, restarted := false, false
		select {
		case err = <-done:
			exited = true
		case <-ctx.Done():
		case <-r.restart[c.Name]:
			logger.Info("Restarting component on request")
			restarted = true
		case <-r.stopForHold(c):
			logger.Info("Stopping component: held")
			restarted = true
		}
		cancel()
		if !exited {
			select {
			case err = <-done:
			case <-time.After(stopWait):
				if ctx.Err() == nil {
					r.exit(logger, fmt.Errorf("component %s did not stop within %v of its restart", c.Name, stopWait))
					return
				}
				// Stopping: the supervisor kills the process if it must.
			}
		}
		r.stopped(c)
		ran := time.Since(started)
		if ctx.Err() != nil {
			logger.Info("Component stopped", "ran", ran.Round(time.Millisecond), "err", err)
			return
		}
		if restarted {
			delay, failures = firstDelay, 0
			continue
		}
		if err == nil {
			err = errors.New("returned without an error")
		}
		if ran >= resetAfter {
			delay, failures = firstDelay, 0
		}
		failures++
		if c.Server || failures >= maxFailures {
			r.exit(logger, fmt.Errorf("component %s ended after %v (%d in a row): %w", c.Name, ran.Round(time.Millisecond), failures, err))
			return
		}
		logger.Error(err, "Component ended; restarting", "ran", ran.Round(time.Millisecond), "delay", delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
			delay = min(2*delay, maxDelay)
		case <-r.restart[c.Name]:
			delay = firstDelay
		}
	}
}

// exitProcess ends the process when a component cannot be restarted in it:
// the simulator's supervisor then restarts them all.
func exitProcess(logger klog.Logger, err error) {
	logger.Error(err, "Exiting, for the whole process to be restarted")
	klog.FlushAndExit(klog.ExitFlushTimeout, 1)
}
