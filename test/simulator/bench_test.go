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
	"slices"
	"testing"
	"time"
)

// BenchmarkStartToReady measures how long cmd/simulator takes from its
// start to /readyz 200 (each run with a fresh etcd prefix in one etcd), and
// the RSS of its process tree 2s after that:
//
//	go test ./test/simulator -run XXX -bench StartToReady -benchtime 3x
//
// It reports the median time and the mean RSS.
func BenchmarkStartToReady(b *testing.B) {
	bins := binDir(b)
	buildSimulator(b)
	etcd := startEtcd(b, bins, b.TempDir())
	var took []time.Duration
	var rssKiB []int
	b.ResetTimer()
	for i := range b.N {
		sim := startSimulator(b, bins, etcd, fmt.Sprintf("/simulators/bench/%d/%d", b.N, i))
		d := sim.waitReady(b, 2*time.Minute)
		b.StopTimer()
		time.Sleep(2 * time.Second)
		total, byName := treeRSS(b, sim.cmd.Process.Pid)
		b.Logf("run %d: ready after %v; RSS %d MiB %v (KiB)", i, d.Round(time.Millisecond), total/1024, byName)
		took = append(took, d)
		rssKiB = append(rssKiB, total)
		sim.stop(b, 30*time.Second)
		if sim.waitErr != nil {
			b.Fatalf("simulator exited with %v", sim.waitErr)
		}
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(took)
	sum := 0
	for _, r := range rssKiB {
		sum += r
	}
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "ms-to-ready(median)")
	b.ReportMetric(float64(sum)/float64(len(rssKiB))/1024, "MiB-rss")
}
