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
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// BenchmarkStartToReady measures what a simulator Pod's processes cost
// without a node: how long cmd/simulator takes from its start to /readyz 200,
// and, once it has idled SIM_BENCH_IDLE (default 60s), the memory of each of
// its processes and of an etcd of its own run with the etcd container's
// flags (backing.EtcdTuning), as in the Pod:
//
//	go test ./test/simulator -run XXX -bench StartToReady -benchtime 5x -timeout 30m
//
// It reports the median time to ready, and the median RSS and its
// anonymous part of each program (rss-PROGRAM-MiB, anon-PROGRAM-MiB) and of
// all of them (rss-total-MiB, anon-total-MiB, file-total-MiB). The
// file-backed part is the binaries' pages: page cache, shared by every
// simulator Pod of a node.
func BenchmarkStartToReady(b *testing.B) {
	bins := binDir(b)
	buildSimulator(b)
	idle := framework.BenchIdle(b, time.Minute)
	var took []time.Duration
	figures := map[string][]float64{}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		etcd, etcdURL := startEtcdWith(b, bins, b.TempDir(), nil, backing.EtcdTuning()...)
		b.StartTimer()
		sim := startSimulator(b, bins, etcdURL, fmt.Sprintf("/simulators/bench/%d/%d", b.N, i))
		d := sim.waitReady(b, 2*time.Minute)
		b.StopTimer()
		time.Sleep(idle) // the state measured: idle
		total, byName := treeMemory(b, sim.cmd.Process.Pid)
		etcdMem, err := framework.ProcessMemory(etcd.cmd.Process.Pid)
		if err != nil {
			b.Fatalf("etcd: %v", err)
		}
		byName["etcd"] = byName["etcd"].Add(etcdMem)
		byName["total"] = total.Add(etcdMem)
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(byName)) {
			m := byName[name]
			figures["rss-"+name+"-MiB"] = append(figures["rss-"+name+"-MiB"], mib(m.RSS))
			figures["anon-"+name+"-MiB"] = append(figures["anon-"+name+"-MiB"], mib(m.Anon))
			parts = append(parts, fmt.Sprintf("%s %d (anon %d)", name, m.RSS>>20, m.Anon>>20))
		}
		figures["file-total-MiB"] = append(figures["file-total-MiB"], mib(byName["total"].File))
		b.Logf("run %d: ready after %v; RSS after %v idle (MiB): %s", i, d.Round(time.Millisecond), idle, strings.Join(parts, ", "))
		took = append(took, d)
		sim.stop(b, 30*time.Second)
		if sim.waitErr != nil {
			b.Fatalf("simulator exited with %v", sim.waitErr)
		}
		etcd.stop(b, 30*time.Second)
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "ms-to-ready(median)")
	for unit, values := range figures {
		slices.Sort(values)
		b.ReportMetric(values[len(values)/2], unit)
	}
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }
