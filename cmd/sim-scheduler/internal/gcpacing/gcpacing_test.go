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

package gcpacing

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// fakeRuntime is a process whose allocations the test makes.
type fakeRuntime struct {
	mu        sync.Mutex
	allocated uint64
	reads     int
	percent   int
	released  int
}

func (f *fakeRuntime) hooks() runtimeHooks {
	return runtimeHooks{
		allocated: func() uint64 {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.reads++
			return f.allocated
		},
		setPercent: func(p int) int {
			f.mu.Lock()
			defer f.mu.Unlock()
			old := f.percent
			f.percent = p
			return old
		},
		release: func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.released++
		},
	}
}

func (f *fakeRuntime) state() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.percent, f.released
}

func TestRun(t *testing.T) {
	const mib = 1 << 20
	cfg := Config{BusyPercent: 200, BusyRate: 32 * mib, Calm: 3 * time.Second, Interval: time.Second}
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	rt := &fakeRuntime{percent: 50}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx, cfg, clk, rt.hooks())
	}()
	// reads waits until run has read the allocations n times.
	reads := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			rt.mu.Lock()
			got := rt.reads
			rt.mu.Unlock()
			if got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("run read the allocations %d times, want %d", got, n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	// second advances the clock by a second in which the process
	// allocated perSecond bytes, and waits until run has read them.
	ticks := 0
	second := func(perSecond uint64) {
		t.Helper()
		reads(ticks + 1)
		rt.mu.Lock()
		rt.allocated += perSecond
		rt.mu.Unlock()
		clk.Step(time.Second)
		ticks++
		reads(ticks + 1)
	}
	// settled waits until run has set the percent and released memory
	// as often as wanted (it sets them after it reads a tick).
	settled := func(wantPercent, wantReleased int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			p, r := rt.state()
			if p == wantPercent && r == wantReleased {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("percent %d, released %d times; want %d, %d", p, r, wantPercent, wantReleased)
			}
			time.Sleep(time.Millisecond)
		}
	}
	for range 5 {
		second(4 * mib)
	}
	settled(50, 0)
	second(64 * mib)
	settled(200, 0)
	// Calm for less than cfg.Calm, busy again: still busy.
	second(mib)
	second(mib)
	second(40 * mib)
	second(mib)
	second(mib)
	settled(200, 0)
	// Calm for cfg.Calm since the last busy second: idle, and the memory
	// goes back.
	second(mib)
	settled(50, 1)
	for range 5 {
		second(mib)
	}
	settled(50, 1)
	second(100 * mib)
	settled(200, 1)
	cancel()
	<-done
	if p, _ := rt.state(); p != 50 {
		t.Errorf("percent after the end %d, want the idle 50", p)
	}
}

func TestRunLeavesHighPercents(t *testing.T) {
	for _, tc := range []struct{ idle, busy int }{{-1, 200}, {200, 200}, {400, 200}, {50, 0}} {
		rt := &fakeRuntime{percent: tc.idle}
		clk := clocktesting.NewFakeClock(time.Now())
		// Returns at once: nothing to pace.
		run(context.Background(), Config{BusyPercent: tc.busy, BusyRate: 1}, clk, rt.hooks())
		if p, _ := rt.state(); p != tc.idle {
			t.Errorf("GOGC %d, busy percent %d: percent %d after run", tc.idle, tc.busy, p)
		}
	}
}

func TestLimitToContainer(t *testing.T) {
	dir := t.TempDir()
	write := func(content string) string {
		path := filepath.Join(dir, "memory.max")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name, content, gomemlimit string
		missing                   bool
		want                      int64
	}{
		{name: "a limit", content: "1073741824\n", want: 966367638},
		{name: "no limit", content: "max\n", want: -1},
		{name: "GOMEMLIMIT wins", content: "1073741824\n", gomemlimit: "500MiB", want: -1},
		{name: "no cgroup v2", missing: true, want: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "absent")
			if !tc.missing {
				path = write(tc.content)
			}
			got := int64(-1)
			limitToContainer(context.Background(), path, tc.gomemlimit, func(v int64) int64 { got = v; return 0 })
			if got != tc.want {
				t.Errorf("limit set %d, want %d (-1: none)", got, tc.want)
			}
		})
	}
}
