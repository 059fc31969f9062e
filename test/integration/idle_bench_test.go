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

package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// clockTicks is the unit of utime and stime in /proc/PID/stat (USER_HZ).
const clockTicks = 100

// BenchmarkIdleNodes fills a simulator with SIM_BENCH_NODES (5,000) Nodes
// from a NodePool, leaves it idle for SIM_BENCH_IDLE (10m), and reports the
// CPU its processes used meanwhile (simulator, kube-apiserver,
// kube-controller-manager, kube-scheduler, kwok and etcd together, in cores),
// their RSS at the end, how many Nodes stopped being Ready (must be 0) and
// how many Node writes it saw (nothing heartbeats a fake Node: 0).
// Run it once: go test -p 1 -run '^$' -bench IdleNodes -benchtime 1x -timeout 30m ./test/integration/
func BenchmarkIdleNodes(b *testing.B) {
	n := framework.BenchNodes(b)
	idle := framework.BenchIdle(b, 10*time.Minute)
	ns := createNamespace(b, "bench-idle")
	for i := range b.N {
		name := fmt.Sprintf("idle-%d", i)
		p := runningSimulator(b, ns, name)
		inner := innerClient(b, ns, name)
		np := &v1alpha1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Name: "idle"},
			Spec:       v1alpha1.NodePoolSpec{SimulatorName: name, Replicas: ptr.To(int32(n))},
		}
		if _, err := simClient(b).SimV1alpha1().NodePools(ns).Create(b.Context(), np, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		waitForPool(b, inner, ns, "idle")

		// Every Node write, and every Ready → not Ready transition, while
		// idle.
		var writes, lost atomic.Int64
		factory := informers.NewSharedInformerFactory(inner, 0)
		inf := factory.Core().V1().Nodes().Informer()
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(old, obj interface{}) {
				writes.Add(1)
				if nodeReady(old.(*corev1.Node)) && !nodeReady(obj.(*corev1.Node)) {
					lost.Add(1)
				}
			},
			DeleteFunc: func(interface{}) { lost.Add(1) },
		}); err != nil {
			b.Fatal(err)
		}
		watchCtx, cancel := context.WithCancel(b.Context())
		factory.Start(watchCtx.Done())
		cache.WaitForCacheSync(watchCtx.Done(), inf.HasSynced)

		pids := processTree(b, p.PIDs())
		cpuBefore := cpuTicks(b, pids)
		b.ResetTimer()
		time.Sleep(idle) // the measurement: what idling costs
		b.StopTimer()
		cores := float64(cpuTicks(b, pids)-cpuBefore) / clockTicks / idle.Seconds()
		var rss int64
		for _, pid := range pids {
			r, err := framework.ProcessRSS(pid)
			if err != nil {
				b.Fatal(err)
			}
			rss += r
		}
		nodes := poolNodes(b.Context(), b, inner, "idle")
		notReady := 0
		for _, node := range nodes {
			if !nodeReady(&node) {
				notReady++
			}
		}
		cancel()
		factory.Shutdown()
		b.ReportMetric(float64(writes.Load()), "node-writes")
		b.ReportMetric(cores, "cpu-cores")
		b.ReportMetric(float64(rss)/(1<<20), "rss-MiB")
		b.ReportMetric(float64(notReady), "notready-nodes")
		b.ReportMetric(float64(lost.Load()), "ready-lost")
		b.Logf("%d Nodes (%s) idle %v: %d processes, %.3f cores, RSS %d MiB, %d not Ready at the end, %d Ready→not Ready transitions, %d Node writes",
			len(nodes), sim.LabelNodePool+"=idle", idle, len(pids), cores, rss>>20, notReady, lost.Load(), writes.Load())
		p.Stop()
	}
}

// processTree returns roots and all their descendants.
func processTree(tb testing.TB, roots []int) []int {
	tb.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		tb.Fatal(err)
	}
	children := map[int][]int{}
	for _, s := range stats {
		data, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces.
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	queue := append([]int(nil), roots...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		out = append(out, pid)
		queue = append(queue, children[pid]...)
	}
	return out
}

// cpuTicks sums the user and system time of pids, in clock ticks.
func cpuTicks(tb testing.TB, pids []int) int64 {
	tb.Helper()
	var total int64
	for _, pid := range pids {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			tb.Fatalf("process %d: %v", pid, err)
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		// After the comm: state(0) ppid(1) ... utime(11) stime(12).
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		total += utime + stime
	}
	return total
}
