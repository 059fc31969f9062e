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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// BenchmarkSourceImport measures the first copy of a source: a simulator
// holding SIM_BENCH_NODES Nodes (default 5000) and ten times as many Pods,
// one in twenty pending, mirrored Once into another:
//
//	SIM_BENCH_NODES=1000 go test ./test/simulator -run XXX -bench SourceImport -benchtime 1x -timeout 30m
//
// It reports the seconds from the mirror's start to Synced (import-s, the
// simulator's start to ready taken off), the objects a second, that rate
// over KSS's advised 400 QPS (vs-400qps), and the time a raw 32-worker
// loop takes to write the same objects into a fresh simulator over the
// import's (vs-raw-loop: 1 is as fast as the inner cluster takes them).
func BenchmarkSourceImport(b *testing.B) {
	nodes := framework.BenchNodes(b)
	pods := 10 * nodes
	etcd := framework.StartThrowawayEtcd(b)
	src := startSource(b, etcd)
	src.WaitReady(b, 2*time.Minute)
	cfg := src.RESTConfig()
	cfg.QPS, cfg.Burst = -1, 0
	sc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	createNodes(b, sc, "node", nodes, false)
	createSourcePods(b, sc, nodes, pods)
	secretDir := b.TempDir()
	writeSourceSecret(b, secretDir, src, "")
	objects := float64(nodes + pods)

	var imports, raws []float64
	b.ResetTimer()
	for i := range b.N {
		source := &contract.Source{Mode: contract.SourceModeOnce, Dir: secretDir, QPS: 50}
		sim := framework.StartStandaloneSimulator(b, etcd, fmt.Sprintf("/simulators/bench/import/%d/%d", b.N, i), contract.Environment{Source: source}.Strings()...)
		ready := sim.WaitReady(b, 2*time.Minute)
		var synced time.Duration
		framework.WaitUntil(b, 10*time.Minute, "the import", func() (bool, error) {
			if sim.Exited() {
				return false, fmt.Errorf("simulator exited: %v", sim.Err())
			}
			s := sourceStatus(b, sim)
			synced = time.Since(sim.Started)
			return s.Phase == contract.SourceSynced, nil
		})
		s := sourceStatus(b, sim)
		if s.Objects["pods"] != int64(pods) || s.Objects["nodes"] != int64(nodes) {
			b.Fatalf("imported %v, want %d nodes and %d pods", s.Objects, nodes, pods)
		}
		// The mirror starts when kube-apiserver is ready, a little before
		// the simulator is: the figure is a little more than the import.
		imports = append(imports, (synced - ready).Seconds())
		b.Logf("import %d: ready after %s, synced after %s", i, ready.Round(time.Millisecond), synced.Round(time.Millisecond))
		for l := range strings.Lines(sim.Tail(2000)) {
			if strings.Contains(l, "Copied") {
				b.Log(strings.TrimSpace(l))
			}
		}
		sim.Stop(b, time.Minute)

		// The same objects written by a raw 32-worker loop into a fresh
		// simulator: what its kube-apiserver (and kwok, playing the bound
		// Pods) takes on this machine now.
		raw := framework.StartStandaloneSimulator(b, etcd, fmt.Sprintf("/simulators/bench/raw/%d/%d", b.N, i))
		raw.WaitReady(b, 2*time.Minute)
		rcfg := raw.RESTConfig()
		rcfg.QPS, rcfg.Burst = -1, 0
		rcfg.ContentType = "application/vnd.kubernetes.protobuf"
		rc, err := kubernetes.NewForConfig(rcfg)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		createNodes(b, rc, "node", nodes, true)
		createSourcePods(b, rc, nodes, pods)
		raws = append(raws, time.Since(start).Seconds())
		b.Logf("raw %d: %s", i, time.Since(start).Round(time.Millisecond))
		raw.Stop(b, time.Minute)
	}
	b.StopTimer()
	m := median(imports)
	b.ReportMetric(m, "import-s")
	b.ReportMetric(objects/m, "objects/s")
	b.ReportMetric(objects/m/400, "vs-400qps")
	b.ReportMetric(median(raws)/m, "vs-raw-loop")
}

// createSourcePods makes n Pods in the default namespace, bound round
// the nodes node-0..node-(nodes-1), but one in twenty left pending.
func createSourcePods(tb testing.TB, c kubernetes.Interface, nodes, n int) {
	tb.Helper()
	createPods(tb, c, 10*time.Minute, n, func(i int) *corev1.Pod {
		node := fmt.Sprintf("node-%d", i%nodes)
		if i%20 == 19 {
			node = ""
		}
		return boundPod("default", fmt.Sprintf("pod-%d", i), node)
	})
}
