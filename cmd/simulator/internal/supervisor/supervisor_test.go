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

package supervisor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2/ktesting"
)

func TestBackoff(t *testing.T) {
	ms := time.Millisecond
	b := Backoff{Initial: 100 * ms, Max: time.Second, Factor: 2, StableAfter: 10 * time.Second}
	var got []time.Duration
	for range 6 {
		got = append(got, b.Next(ms))
	}
	// A child that ran stably starts over at Initial.
	got = append(got, b.Next(10*time.Second), b.Next(ms))
	b.Reset()
	got = append(got, b.Next(ms))
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second, 100 * ms, 200 * ms, 100 * ms}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
}

func TestLineWriter(t *testing.T) {
	var out bytes.Buffer
	w := newLineWriter("[x] ", &out)
	for _, s := range []string{"one\ntw", "o\n", "", "three\nfour"} {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "[x] one\n[x] two\n[x] three\n[x] four\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// syncBuffer is a bytes.Buffer safe for the supervisor's writer goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func fastOptions(out *syncBuffer) Options {
	return Options{
		Backoff: Backoff{Initial: 10 * time.Millisecond, Max: 40 * time.Millisecond, Factor: 2, StableAfter: time.Minute},
		// A child that dies on SIGTERM does so before the SIGKILL, however
		// loaded the machine.
		StopTimeout: waitTimeout,
		Stdout:      out,
		Stderr:      out,
	}
}

// waitTimeout bounds every wait for a state: generous, as a loaded machine
// may take seconds to start a process; a test never waits for time itself.
const waitTimeout = time.Minute

// run starts p.Run in the background and returns a function that cancels
// it and waits for Run to return.
func run(t *testing.T, p *Process) func() {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx)
	}()
	stop := func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitTimeout):
			t.Fatal("Run did not return after cancel")
		}
	}
	t.Cleanup(stop)
	return stop
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 5*time.Millisecond, waitTimeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// alive reports whether pid is a live (not zombie) process.
func alive(t *testing.T, pid int) bool {
	t.Helper()
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// The state follows the parenthesized command name.
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// groupMembers lists live processes of process group pgid.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// fields: state ppid pgrp ...
		if len(fields) > 2 && fields[0] != "Z" && fields[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func requireLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
}

func TestRestartsCrashedChildWithBackoff(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	p := New(Spec{Name: "crasher", Path: "/bin/sh", Args: []string{"-c", "echo hello from $$; exit 3"}}, fastOptions(&out))
	stop := run(t, p)
	// Between two children (no PID) after the fourth start, four children
	// have exited on their own; a stop now would end none.
	var st Status
	waitUntil(t, "the fourth child to exit", func() bool {
		st = p.Status()
		return st.Starts >= 4 && st.PID == 0
	})
	if st.LastExit != "exit status 3" {
		t.Errorf("LastExit = %q, want %q", st.LastExit, "exit status 3")
	}
	// Wait returns once the child's output is copied: its line is written.
	if n := strings.Count(out.String(), "[crasher] hello from "); n < st.Starts {
		t.Errorf("want a prefixed line from each of the %d children, got %d in:\n%s", st.Starts, n, out.String())
	}
	stop()
	if pid := p.Status().PID; pid != 0 {
		t.Errorf("PID = %d after stop, want 0", pid)
	}
}

func TestBackoffGrowsBetweenCrashes(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	opts := fastOptions(&out)
	opts.Backoff = Backoff{Initial: 50 * time.Millisecond, Max: 400 * time.Millisecond, Factor: 2, StableAfter: time.Minute}
	// Each child appends its start time (ns) to a file, then crashes.
	stamps := filepath.Join(t.TempDir(), "starts")
	p := New(Spec{Name: "crasher", Path: "/bin/sh", Args: []string{"-c", "date +%s%N >> " + stamps + "; exit 1"}}, opts)
	stop := run(t, p)
	var data []byte
	waitUntil(t, "5 starts", func() bool {
		data, _ = os.ReadFile(stamps)
		return bytes.Count(data, []byte("\n")) >= 5
	})
	stop()
	var starts []time.Time
	for _, line := range strings.Fields(string(data)) {
		ns, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			t.Fatalf("bad stamp %q: %v", line, err)
		}
		starts = append(starts, time.Unix(0, ns))
	}
	// Each start comes at least the backoff delay after the previous child
	// stamped (and then exited); a loaded machine only adds to the gaps.
	delays := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
	for i, delay := range delays {
		if gap := starts[i+1].Sub(starts[i]); gap < delay {
			t.Errorf("start %d came %v after start %d, less than the backoff delay %v", i+2, gap, i+1, delay)
		}
	}
}

func TestStopsChildOnCancel(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	p := New(Spec{Name: "sleeper", Path: "/bin/sleep", Args: []string{"60"}}, fastOptions(&out))
	stop := run(t, p)
	waitUntil(t, "start", func() bool { return p.Status().PID != 0 })
	pid := p.Status().PID
	stop()
	// Run returns once the child is reaped.
	if alive(t, pid) {
		t.Errorf("child %d still alive after stop", pid)
	}
	st := p.Status()
	if st.LastExit != "signal: terminated" {
		t.Errorf("LastExit = %q, want %q: sleep dies on SIGTERM, before any SIGKILL", st.LastExit, "signal: terminated")
	}
	if st.Starts != 1 {
		t.Errorf("Starts = %d, want 1 (no restart after a stop)", st.Starts)
	}
}

func TestKillsChildThatIgnoresSIGTERM(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	opts := fastOptions(&out)
	opts.StopTimeout = 300 * time.Millisecond
	// The shell and its grandchild (which inherits the ignored signal)
	// ignore SIGTERM: only a SIGKILL to the group ends them.
	script := `trap "" TERM; sleep 600 & echo ready; wait`
	p := New(Spec{Name: "stubborn", Path: "/bin/sh", Args: []string{"-c", script}}, opts)
	stop := run(t, p)
	waitUntil(t, "ready", func() bool { return strings.Contains(out.String(), "[stubborn] ready") })
	pid := p.Status().PID
	stop()
	if got := p.Status().LastExit; got != "signal: killed" {
		t.Errorf("LastExit = %q, want %q: the child ignores SIGTERM", got, "signal: killed")
	}
	// The grandchild dies once the kernel delivers its SIGKILL, which may
	// be after the shell was reaped; left alone it would sleep for 10m.
	var members []int
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, waitTimeout, true, func(context.Context) (bool, error) {
		members = groupMembers(t, pid)
		return len(members) == 0, nil
	})
	if err != nil {
		t.Errorf("process group %d still has live members %v: %v", pid, members, err)
	}
}

func TestRestartOnRequest(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	p := New(Spec{Name: "sleeper", Path: "/bin/sleep", Args: []string{"60"}}, fastOptions(&out))
	run(t, p)
	waitUntil(t, "start", func() bool { return p.Status().PID != 0 })
	first := p.Status().PID
	p.Restart()
	waitUntil(t, "a new child", func() bool { st := p.Status(); return st.PID != 0 && st.PID != first })
	if alive(t, first) {
		t.Errorf("old child %d still alive", first)
	}
	st := p.Status()
	if st.Starts != 2 {
		t.Errorf("Starts = %d, want 2", st.Starts)
	}
	if !strings.Contains(st.LastExit, "signal: terminated") {
		t.Errorf("LastExit = %q, want the old child terminated by SIGTERM", st.LastExit)
	}
}

// TestSignal: the running child gets the signal and stays the same child
// (a shared runtime restarts its scheduler on SIGHUP); none running, an
// error.
func TestSignal(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	got := filepath.Join(t.TempDir(), "got")
	script := `trap 'echo hup > "$1"' HUP; while :; do sleep 0.05; done`
	p := New(Spec{Name: "listener", Path: "/bin/sh", Args: []string{"-c", script, "sh", got}}, fastOptions(&out))
	if err := p.Signal(syscall.SIGHUP); err == nil {
		t.Error("Signal before any start: no error")
	}
	run(t, p)
	waitUntil(t, "start", func() bool { return p.Status().PID != 0 })
	first := p.Status()
	// The trap is set at once, but give the shell its first instant.
	time.Sleep(100 * time.Millisecond)
	if err := p.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the child to see SIGHUP", func() bool { _, err := os.Stat(got); return err == nil })
	if st := p.Status(); st.PID != first.PID || st.Starts != 1 {
		t.Errorf("status went from %+v to %+v, want the same child", first, st)
	}
}

func TestBeforeStartGatesStart(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	opts := fastOptions(&out)
	called, gate := make(chan struct{}), make(chan struct{})
	// The gate leaves a file just before it opens; a child started
	// earlier does not find it.
	opened := filepath.Join(t.TempDir(), "opened")
	var once sync.Once
	opts.BeforeStart = func(ctx context.Context) error {
		once.Do(func() { close(called) })
		select {
		case <-gate:
			return os.WriteFile(opened, nil, 0o644)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	script := `if [ -e "$1" ]; then echo after the gate; else echo before the gate; fi; exec sleep 60`
	p := New(Spec{Name: "gated", Path: "/bin/sh", Args: []string{"-c", script, "sh", opened}}, opts)
	run(t, p)
	select {
	case <-called:
	case <-time.After(waitTimeout):
		t.Fatal("BeforeStart was not called")
	}
	if st := p.Status(); st.Starts != 0 {
		t.Fatalf("started while BeforeStart had not returned: %+v", st)
	}
	close(gate)
	waitUntil(t, "the child's line", func() bool { return strings.Contains(out.String(), "the gate") })
	if !strings.Contains(out.String(), "[gated] after the gate") {
		t.Errorf("the child did not start after the gate opened:\n%s", out.String())
	}
}

func TestStartFailureIsRetried(t *testing.T) {
	var out syncBuffer
	dir := t.TempDir()
	path := filepath.Join(dir, "appears-later")
	opts := fastOptions(&out)
	// BeforeStart counts the attempts: a second one follows a failed start.
	var mu sync.Mutex
	attempts := 0
	opts.BeforeStart = func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		attempts++
		return nil
	}
	p := New(Spec{Name: "late", Path: path}, opts)
	run(t, p)
	waitUntil(t, "a second start attempt", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return attempts >= 2
	})
	if st := p.Status(); st.Starts != 0 {
		t.Fatalf("Starts = %d before the executable exists, want 0", st.Starts)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "start once the executable exists", func() bool { return p.Status().PID != 0 })
}

// TestHold: a held child has exited when Hold returns and is not started
// again, asked to restart or not, until its last hold is released; a hold
// asked with its context done does nothing.
func TestHold(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	p := New(Spec{Name: "sleeper", Path: "/bin/sleep", Args: []string{"60"}}, fastOptions(&out))
	run(t, p)
	waitUntil(t, "start", func() bool { return p.Status().PID != 0 })
	first := p.Status().PID
	release, err := p.Hold(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if pid := p.Status().PID; pid != 0 || alive(t, first) {
		t.Fatalf("Hold returned with child %d (first %d alive: %v)", pid, first, alive(t, first))
	}
	release2, err := p.Hold(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p.Restart()
	release()
	release()
	time.Sleep(200 * time.Millisecond)
	if st := p.Status(); st.PID != 0 || st.Starts != 1 {
		t.Fatalf("held: %+v, want no child and 1 start", st)
	}
	release2()
	waitUntil(t, "the start after the last release", func() bool { return p.Status().PID != 0 })
	if st := p.Status(); st.Starts != 2 {
		t.Errorf("Starts = %d, want 2", st.Starts)
	}
	gone, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Hold(gone); err == nil {
		t.Error("Hold with its context done: no error")
	}
	time.Sleep(200 * time.Millisecond)
	if st := p.Status(); st.PID == 0 || st.Starts != 2 {
		t.Errorf("after a refused hold: %+v, want the second child running", st)
	}
}
