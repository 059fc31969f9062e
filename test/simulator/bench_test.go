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

package simulator_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// BenchmarkStartToReady measures what a simulator Pod's processes cost
// without a node: how long cmd/simulator takes from its start to /readyz 200,
// and, once it has idled SIM_BENCH_IDLE (default 60s), the memory of each of
// its processes and of an etcd of its own run with the etcd container's
// flags (contract.EtcdFlags), as in the Pod:
//
//	go test ./test/simulator -run XXX -bench StartToReady -benchtime 5x -timeout 30m
//
// It reports the median time to ready, and the median RSS and its
// anonymous part of each program (rss-PROGRAM-MiB, anon-PROGRAM-MiB) and of
// all of them (rss-total-MiB, anon-total-MiB, file-total-MiB). The
// file-backed part is the binaries' pages: page cache, shared by every
// simulator Pod of a node. It reports the CPU each program and all used
// over the idle time's second half (millicores-PROGRAM, millicores-total):
// what an idle simulator costs its node.
//
// Its contenders are the simulator as shipped ("shared": kube-apiserver,
// kube-controller-manager, kwok and sim-scheduler in one process, its
// figures sim-control-plane's) and with the four each a process
// ("separate", SIMULATOR_SHARED_RUNTIME=false), one after the other in an
// order that rotates.
//
// SIM_BENCH_BIN_DIRS=NAME=DIR,NAME=DIR,... compares variants of the
// children (flags, environment, builds) as contenders: each iteration runs
// one simulator per directory, one after the other in an order that
// rotates, with the directory as its SIMULATOR_BIN_DIR and its etcd. A
// variant is a directory of links to _output/bin's binaries, one of them
// replaced by a script, e.g. kube-apiserver:
//
//	#!/bin/sh
//	exec env GOMEMLIMIT=150MiB /path/to/_output/bin/kube-apiserver "$@"
func BenchmarkStartToReady(b *testing.B) {
	bins := framework.RequireBinaries(b)
	idle := framework.BenchIdle(b, time.Minute)
	type variant struct {
		name, dir string
		env       []string
	}
	variants := []variant{{"separate", bins, contract.Environment{SeparateProcesses: true}.Strings()}, {"shared", bins, nil}}
	if v := os.Getenv("SIM_BENCH_BIN_DIRS"); v != "" {
		variants = nil
		for _, pair := range strings.Split(v, ",") {
			name, dir, ok := strings.Cut(pair, "=")
			if !ok || name == "" || dir == "" {
				b.Fatalf("SIM_BENCH_BIN_DIRS: %q is not NAME=DIR", pair)
			}
			variants = append(variants, variant{name, dir, nil})
		}
	}
	// figures[variant][unit] are the runs' values.
	figures := map[string]map[string][]float64{}
	b.ResetTimer()
	for i := range b.N {
		for j := range variants {
			v := variants[(i+j)%len(variants)]
			b.StopTimer()
			etcd, etcdURL := framework.StartTestEtcdBinary(b, filepath.Join(v.dir, "etcd"), b.TempDir(), nil, contract.EtcdFlags()...)
			b.StartTimer()
			sim := framework.StartStandaloneSimulator(b, etcdURL, fmt.Sprintf("/simulators/bench/%d/%d/%d", b.N, i, j),
				append(contract.Environment{BinDir: v.dir}.Strings(), v.env...)...)
			d := sim.WaitReady(b, 2*time.Minute)
			b.StopTimer()
			// The state measured: idle. Its CPU is read over the second
			// half, once the start's work is done.
			time.Sleep(idle / 2)
			cpuBefore, err := cpuByProgram(sim.PID(), etcd.PID())
			if err != nil {
				b.Fatal(err)
			}
			time.Sleep(idle / 2)
			cpuAfter, err := cpuByProgram(sim.PID(), etcd.PID())
			if err != nil {
				b.Fatal(err)
			}
			total, byName, err := framework.TreeMemory(sim.PID())
			if err != nil {
				b.Fatalf("simulator: %v", err)
			}
			etcdMem, err := framework.ProcessMemory(etcd.PID())
			if err != nil {
				b.Fatalf("etcd: %v", err)
			}
			byName["etcd"] = byName["etcd"].Add(etcdMem)
			byName["total"] = total.Add(etcdMem)
			if figures[v.name] == nil {
				figures[v.name] = map[string][]float64{}
			}
			add := func(unit string, value float64) { figures[v.name][unit] = append(figures[v.name][unit], value) }
			add("ms-to-ready(median)", float64(d.Milliseconds()))
			var parts []string
			for _, name := range slices.Sorted(maps.Keys(byName)) {
				m := byName[name]
				add("rss-"+name+"-MiB", framework.MiB(m.RSS))
				add("anon-"+name+"-MiB", framework.MiB(m.Anon))
				parts = append(parts, fmt.Sprintf("%s %d (anon %d)", name, m.RSS>>20, m.Anon>>20))
			}
			add("file-total-MiB", framework.MiB(byName["total"].File))
			var cpuParts []string
			used := cpuUsed(cpuBefore, cpuAfter)
			for _, name := range slices.Sorted(maps.Keys(used)) {
				mc := float64(used[name]) / float64(idle/2) * 1000
				add("millicores-"+name, mc)
				cpuParts = append(cpuParts, fmt.Sprintf("%s %.1f", name, mc))
			}
			b.Logf("run %d %s: ready after %v; RSS after %v idle (MiB): %s; CPU over its second half (millicores): %s",
				i, v.name, d.Round(time.Millisecond), idle, strings.Join(parts, ", "), strings.Join(cpuParts, ", "))
			sim.Stop(b, 30*time.Second)
			if err := sim.Err(); err != nil {
				b.Fatalf("simulator exited with %v", err)
			}
			etcd.Stop(b, 30*time.Second)
			b.StartTimer()
		}
	}
	b.StopTimer()
	for name, units := range figures {
		for unit, values := range units {
			framework.ReportContender(b, name, framework.Median(values), unit)
		}
	}
}

// cpuByProgram is the CPU time the simulator's processes and its etcd have
// used, by program.
func cpuByProgram(simPID, etcdPID int) (map[string]time.Duration, error) {
	_, byName, err := framework.TreeCPUByProgram(simPID)
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	etcd, err := framework.ProcessCPU(etcdPID)
	if err != nil {
		return nil, fmt.Errorf("etcd: %w", err)
	}
	byName["etcd"] += etcd
	return byName, nil
}

// cpuUsed is the CPU time each program of after (cpuByProgram's) spent
// since before, and all of them as "total".
func cpuUsed(before, after map[string]time.Duration) map[string]time.Duration {
	used, total := framework.CPUUsed(before, after)
	used["total"] = total
	return used
}
