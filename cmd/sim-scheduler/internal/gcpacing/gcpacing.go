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

// Package gcpacing sets the process's garbage collector by its load. Idle,
// the heap growth GOGC asks for (a low one keeps an idle control plane
// small); while the process allocates fast, a larger one, because at the
// low growth collecting takes a quarter of a busy control plane's CPU (a
// trace replayed into a simulator: 172 CPU seconds at GOGC=50, 116 at 200,
// one run each).
// When the load ends, the idle growth returns and the freed memory goes
// back to the system at once.
package gcpacing

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Config says when the process is busy and how it collects then.
type Config struct {
	// BusyPercent is the GC percent (as GOGC) while busy.
	BusyPercent int
	// BusyRate is the allocation rate, in bytes a second, at and above
	// which the process is busy.
	BusyRate float64
	// Calm is how long the rate stays below BusyRate before the idle
	// percent returns.
	Calm time.Duration
	// Interval is how often the rate is read; a second when zero.
	Interval time.Duration
}

// Default is what sim-control-plane runs with.
var Default = Config{BusyPercent: 200, BusyRate: 32 << 20, Calm: 10 * time.Second}

// runtimeHooks are the process's runtime, replaced in tests.
type runtimeHooks struct {
	allocated  func() uint64
	setPercent func(int) int
	release    func()
}

var processRuntime = runtimeHooks{
	allocated: func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[0].Value.Uint64()
	},
	setPercent: debug.SetGCPercent,
	release:    debug.FreeOSMemory,
}

// Run paces the garbage collector until ctx ends, then leaves it at the
// idle percent. The idle percent is the one the process started with
// (GOGC); unless it is lower than BusyPercent (not GOGC=off, nor as high;
// a BusyPercent of 0 turns pacing off), it does nothing.
func Run(ctx context.Context, cfg Config) {
	run(ctx, cfg, clock.RealClock{}, processRuntime)
}

func run(ctx context.Context, cfg Config, clk clock.WithTicker, rt runtimeHooks) {
	logger := klog.FromContext(ctx)
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	// SetGCPercent is the only reader of the current percent.
	idle := rt.setPercent(100)
	rt.setPercent(idle)
	if idle < 0 || idle >= cfg.BusyPercent {
		logger.V(2).Info("Garbage collector paced by GOGC alone", "percent", idle, "busyPercent", cfg.BusyPercent)
		return
	}
	ticker := clk.NewTicker(cfg.Interval)
	defer ticker.Stop()
	busy := false
	var busySince, lastBusy time.Time
	last, lastAt := rt.allocated(), clk.Now()
	defer func() {
		if busy {
			rt.setPercent(idle)
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
		now, allocated := clk.Now(), rt.allocated()
		elapsed := now.Sub(lastAt).Seconds()
		rate := 0.0
		if elapsed > 0 && allocated >= last {
			rate = float64(allocated-last) / elapsed
		}
		last, lastAt = allocated, now
		switch {
		case rate >= cfg.BusyRate:
			lastBusy = now
			if !busy {
				busy, busySince = true, now
				rt.setPercent(cfg.BusyPercent)
				logger.Info("Garbage collector paced for load", "percent", cfg.BusyPercent, "allocatedPerSecond", int64(rate))
			}
		case busy && now.Sub(lastBusy) >= cfg.Calm:
			busy = false
			rt.setPercent(idle)
			// The heap the busy percent let grow is garbage now: collect
			// it and give it back rather than wait for the scavenger.
			rt.release()
			logger.Info("Garbage collector paced for idle", "percent", idle, "busyFor", now.Sub(busySince).Round(time.Second))
		}
	}
}

// cgroupMemoryMax is the cgroup (v2) file of the container's memory limit.
const cgroupMemoryMax = "/sys/fs/cgroup/memory.max"

// LimitToContainer sets the runtime's soft memory limit to nine tenths of
// the container's memory limit, unless GOMEMLIMIT sets one or the
// container has none: near the limit the collector runs more often, rather
// than let the busy percent's heap get the container killed.
func LimitToContainer(ctx context.Context) {
	limitToContainer(ctx, cgroupMemoryMax, os.Getenv("GOMEMLIMIT"), debug.SetMemoryLimit)
}

func limitToContainer(ctx context.Context, path, gomemlimit string, set func(int64) int64) {
	if gomemlimit != "" {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		// Not in a cgroup v2 container: nothing to follow.
		return
	}
	limit, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || limit <= 0 {
		// "max": no limit.
		return
	}
	soft := limit / 10 * 9
	set(soft)
	klog.FromContext(ctx).V(2).Info("Soft memory limit set from the container's", "containerLimit", limit, "softLimit", soft)
}
