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

// Package supervisor runs a child process and keeps it running: a child
// that exits is restarted with exponential backoff, Restart replaces it at
// once, Hold stops it until released, and cancelling the context stops it
// (SIGTERM, then SIGKILL).
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/hold"
)

// Spec says what to run.
type Spec struct {
	// Name identifies the child in logs and status.
	Name string
	// Path is the executable.
	Path string
	Args []string
	// Env is added to the supervisor's own environment.
	Env []string
}

// Options say how to run it.
type Options struct {
	Backoff Backoff
	// StopTimeout is how long a child has to exit after SIGTERM before it
	// gets SIGKILL.
	StopTimeout time.Duration
	// BeforeStart, when set, runs before every start; the child starts once
	// it returns nil. An error counts as a failed start.
	BeforeStart func(ctx context.Context) error
	// Stdout and Stderr receive the child's output, each line prefixed with
	// "[name] ". Nil means os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
}

// Status is a snapshot of a supervised child.
type Status struct {
	Name string `json:"name"`
	// PID is the running child's process ID; 0 when none runs.
	PID int `json:"pid"`
	// Starts counts successful starts.
	Starts int `json:"starts"`
	// StartedAt is when the running child started.
	StartedAt time.Time `json:"startedAt,omitzero"`
	// LastExit describes how the previous child ended.
	LastExit string `json:"lastExit,omitempty"`
}

// Process supervises one child.
type Process struct {
	spec    Spec
	opts    Options
	restart chan struct{}
	// gate holds the child stopped for those who ask (Hold).
	gate *hold.Gate

	mu     sync.Mutex
	status Status
}

// New returns a supervisor of spec; Run starts it.
func New(spec Spec, opts Options) *Process {
	if opts.Backoff.Initial == 0 {
		opts.Backoff = DefaultBackoff()
	}
	if opts.StopTimeout == 0 {
		opts.StopTimeout = 5 * time.Second
	}
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	return &Process{spec: spec, opts: opts, restart: make(chan struct{}, 1), status: Status{Name: spec.Name}, gate: hold.NewGate()}
}

// Hold stops the child and keeps it from starting until release is
// called; it returns once the child has exited, or with ctx's error,
// released. Holds nest: the child starts again, at once, when the last is
// released.
func (p *Process) Hold(ctx context.Context) (release func(), err error) {
	return p.gate.Hold(ctx)
}

// startWhenReleased waits until the child is not held and marks it
// running in the same step; or returns ctx's error.
func (p *Process) startWhenReleased(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	waited, err := p.gate.Start(ctx, func() { logger.Info("Child held") })
	if waited && err == nil {
		logger.Info("Child released")
	}
	return err
}

// Name is the child's name.
func (p *Process) Name() string { return p.spec.Name }

// Status returns the child's current status.
func (p *Process) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// Restart asks for the running child to be stopped and started again at
// once, without backoff. It does not wait.
func (p *Process) Restart() {
	select {
	case p.restart <- struct{}{}:
	default:
	}
}

// Signal sends sig to the running child; an error if none runs.
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	pid := p.status.PID
	p.mu.Unlock()
	if pid == 0 {
		return fmt.Errorf("%s is not running", p.spec.Name)
	}
	return syscall.Kill(pid, sig)
}

// Run keeps the child running until ctx is cancelled, then stops it and
// returns. Call it once.
func (p *Process) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("process", p.spec.Name)
	ctx = klog.NewContext(ctx, logger)
	backoff := p.opts.Backoff
	for {
		if p.startWhenReleased(ctx) != nil {
			return
		}
		ran, restarted, err := p.runOnce(ctx)
		p.gate.Stopped()
		if ctx.Err() != nil {
			return
		}
		if restarted {
			backoff.Reset()
			continue
		}
		delay := backoff.Next(ran)
		logger.Error(err, "Child ended; restarting", "ran", ran.Round(time.Millisecond), "delay", delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		case <-p.restart:
			backoff.Reset()
		}
	}
}

// runOnce starts the child and waits until it exits, a restart or a hold is
// asked for, or ctx is done. It reports how long the child ran and whether
// it was stopped for a restart or a hold.
func (p *Process) runOnce(ctx context.Context) (time.Duration, bool, error) {
	logger := klog.FromContext(ctx)
	if p.opts.BeforeStart != nil {
		if err := p.opts.BeforeStart(ctx); err != nil {
			return 0, false, fmt.Errorf("before start: %w", err)
		}
	}
	// The child about to start has the latest configuration: an earlier
	// restart request is satisfied by it.
	select {
	case <-p.restart:
	default:
	}

	stdout := newLineWriter("["+p.spec.Name+"] ", p.opts.Stdout)
	stderr := newLineWriter("["+p.spec.Name+"] ", p.opts.Stderr)
	defer func() {
		_ = stdout.Flush()
		_ = stderr.Flush()
	}()
	cmd := exec.Command(p.spec.Path, p.spec.Args...)
	cmd.Env = append(os.Environ(), p.spec.Env...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = sysProcAttr()
	// A grandchild holding the output pipes must not keep Wait waiting.
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, false, fmt.Errorf("starting %s: %w", p.spec.Path, err)
	}
	pid := cmd.Process.Pid
	p.mu.Lock()
	p.status.PID, p.status.StartedAt = pid, start
	p.status.Starts++
	p.mu.Unlock()
	logger.Info("Started child", "pid", pid, "path", p.spec.Path)

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	restarted := false
	select {
	case err = <-done:
	case <-ctx.Done():
		err = p.stop(ctx, pid, done)
	case <-p.restart:
		logger.Info("Restarting child on request", "pid", pid)
		err = p.stop(ctx, pid, done)
		restarted = true
	case <-p.gate.StopRequested():
		logger.Info("Stopping child: held", "pid", pid)
		err = p.stop(ctx, pid, done)
		restarted = true
	}
	ran := time.Since(start)
	p.mu.Lock()
	p.status.PID, p.status.StartedAt = 0, time.Time{}
	p.status.LastExit = describeExit(err)
	p.mu.Unlock()
	logger.Info("Child exited", "pid", pid, "ran", ran.Round(time.Millisecond), "exit", describeExit(err))
	return ran, restarted, err
}

// stop sends SIGTERM to the child's process group, then SIGKILL if it is
// still there after StopTimeout, and returns the child's exit error.
func (p *Process) stop(ctx context.Context, pid int, done <-chan error) error {
	logger := klog.FromContext(ctx)
	if err := signalGroup(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		logger.Error(err, "Sending SIGTERM", "pid", pid)
	}
	timer := time.NewTimer(p.opts.StopTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
	}
	logger.Info("Child did not stop in time; killing it", "pid", pid, "timeout", p.opts.StopTimeout)
	if err := signalGroup(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		logger.Error(err, "Sending SIGKILL", "pid", pid)
	}
	return <-done
}

func describeExit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
