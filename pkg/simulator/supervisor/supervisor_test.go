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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
		Backoff:     Backoff{Initial: 10 * time.Millisecond, Max: 40 * time.Millisecond, Factor: 2, StableAfter: time.Minute},
		StopTimeout: 5 * time.Second,
		Stdout:      out,
		Stderr:      out,
	}
}

// run starts p.Run in the background and returns a function that cancels
// it and waits for Run to return, reporting how long that took.
func run(t *testing.T, p *Process) func() time.Duration {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx)
	}()
	stop := func() time.Duration {
		start := time.Now()
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("Run did not return after cancel")
		}
		return time.Since(start)
	}
	t.Cleanup(func() { stop() })
	return stop
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
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
	waitUntil(t, "4 starts", func() bool { return p.Status().Starts >= 4 })
	stop()
	st := p.Status()
	if st.PID != 0 {
		t.Errorf("PID = %d after stop, want 0", st.PID)
	}
	if st.LastExit != "exit status 3" {
		t.Errorf("LastExit = %q, want %q", st.LastExit, "exit status 3")
	}
	if n := strings.Count(out.String(), "[crasher] hello from "); n < 4 {
		t.Errorf("want at least 4 prefixed lines, got %d in:\n%s", n, out.String())
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
	// Delays are 50, 100, 200, 400ms: the gaps between starts grow.
	for i := 2; i < len(starts); i++ {
		prev, cur := starts[i-1].Sub(starts[i-2]), starts[i].Sub(starts[i-1])
		if cur <= prev {
			t.Errorf("gap %d (%v) is not longer than gap %d (%v)", i, cur, i-1, prev)
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
	if took := stop(); took > 4*time.Second {
		t.Errorf("stopping took %v; sleep dies on SIGTERM", took)
	}
	if alive(t, pid) {
		t.Errorf("child %d still alive after stop", pid)
	}
	if got := p.Status().Starts; got != 1 {
		t.Errorf("Starts = %d, want 1 (no restart after a stop)", got)
	}
}

func TestKillsChildThatIgnoresSIGTERM(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	opts := fastOptions(&out)
	opts.StopTimeout = 300 * time.Millisecond
	// The shell ignores SIGTERM and keeps starting grandchildren.
	script := `trap "" TERM; echo ready; while :; do sleep 0.05; done`
	p := New(Spec{Name: "stubborn", Path: "/bin/sh", Args: []string{"-c", script}}, opts)
	stop := run(t, p)
	waitUntil(t, "ready", func() bool { return strings.Contains(out.String(), "[stubborn] ready") })
	pid := p.Status().PID
	took := stop()
	if took < opts.StopTimeout {
		t.Errorf("stop took %v, less than the SIGTERM grace of %v: the child did not ignore SIGTERM?", took, opts.StopTimeout)
	}
	if members := groupMembers(t, pid); len(members) != 0 {
		t.Errorf("process group %d still has live members %v", pid, members)
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

func TestBeforeStartGatesStart(t *testing.T) {
	requireLinux(t)
	var out syncBuffer
	opts := fastOptions(&out)
	gate := make(chan struct{})
	opts.BeforeStart = func(ctx context.Context) error {
		select {
		case <-gate:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p := New(Spec{Name: "gated", Path: "/bin/sleep", Args: []string{"60"}}, opts)
	run(t, p)
	time.Sleep(100 * time.Millisecond)
	if st := p.Status(); st.Starts != 0 {
		t.Fatalf("started before the gate opened: %+v", st)
	}
	close(gate)
	waitUntil(t, "start", func() bool { return p.Status().PID != 0 })
}

func TestStartFailureIsRetried(t *testing.T) {
	var out syncBuffer
	dir := t.TempDir()
	path := filepath.Join(dir, "appears-later")
	p := New(Spec{Name: "late", Path: path}, fastOptions(&out))
	run(t, p)
	time.Sleep(50 * time.Millisecond)
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "start once the executable exists", func() bool { return p.Status().PID != 0 })
}
