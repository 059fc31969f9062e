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
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// replayTrace is a trace of an hour: pods Pods arriving evenly over its
// first 50 minutes, each leaving 10 minutes after it came.
func replayTrace(tb testing.TB, pods int) []contract.TraceEvent {
	tb.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	every := 50 * time.Minute / time.Duration(pods)
	events := make([]contract.TraceEvent, 0, 2*pods)
	for i := range pods {
		p := cpuPod(fmt.Sprintf("job-%05d", i), "100m")
		p.Namespace = "batch"
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		obj, err := json.Marshal(p)
		if err != nil {
			tb.Fatal(err)
		}
		at := start.Add(time.Duration(i) * every)
		events = append(events,
			contract.TraceEvent{Time: at, Type: "ADDED", Resource: "pods", Namespace: "batch", Name: p.Name, Object: obj},
			contract.TraceEvent{Time: at.Add(10 * time.Minute), Type: "DELETED", Resource: "pods", Namespace: "batch", Name: p.Name})
	}
	return events
}

// BenchmarkScenarioReplay replays a trace of one hour with 10,000 Pod
// arrivals and departures at 60× (a minute of wall time) into a simulator
// of 50 kwok Nodes: how late the events were applied against their scaled
// time (the goal: each within contract.LateAfter, 100 ms), and what the
// scheduler kept up with.
func BenchmarkScenarioReplay(b *testing.B) {
	const pods = 5000
	// SIM_REPLAY_SPEED replays at another speed-up than the budget's 60×,
	// to find the one this machine keeps up with.
	speed := int32(framework.BenchCount(b, "SIM_REPLAY_SPEED", 60, 1))
	etcd, etcdURL := framework.StartThrowawayEtcdProcess(b)
	trace := replayTrace(b, pods)
	var p99s, maxes, lates, scheduled, walls, peaks []float64
	cpu := map[string][]float64{}
	b.ResetTimer()
	for i := range b.N {
		sim := framework.StartStandaloneSimulator(b, etcdURL, fmt.Sprintf("/simulators/bench/replay/%d/%d", b.N, i))
		sim.WaitReady(b, 2*time.Minute)
		createNodes(b, sim.Client(b), "node", 50, true)
		run := &contract.ScenarioRun{RunID: fmt.Sprint("replay-", i), StartTime: time.Now().Add(3 * time.Second),
			DurationMilliseconds: time.Hour.Milliseconds() / int64(speed), Speed: speed, Trace: trace}
		body, err := json.Marshal(run)
		if err != nil {
			b.Fatal(err)
		}
		cpuBefore, err := cpuByProgram(sim.PID(), etcd.PID())
		if err != nil {
			b.Fatal(err)
		}
		posted := time.Now()
		if code, out := sim.Do(b, http.MethodPost, contract.PathScenario, string(body)); code != http.StatusAccepted {
			b.Fatalf("POST %s = %d %s", contract.PathScenario, code, out)
		}
		var r contract.ScenarioReport
		framework.WaitUntil(b, 5*time.Minute, "the replay's end", func() (bool, error) {
			code, out := sim.Do(b, http.MethodGet, contract.PathScenario, "")
			if code != http.StatusOK {
				return false, fmt.Errorf("GET %s = %d %s", contract.PathScenario, code, out)
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				return false, err
			}
			return r.Phase == contract.ScenarioRunSucceeded || r.Phase == contract.ScenarioRunFailed, nil
		})
		if r.Phase != contract.ScenarioRunSucceeded || r.EventsApplied != 2*pods {
			b.Fatalf("replay %s (%q): %d of %d events applied, %d failed", r.Phase, r.Message, r.EventsApplied, 2*pods, r.EventsFailed)
		}
		cpuAfter, err := cpuByProgram(sim.PID(), etcd.PID())
		if err != nil {
			b.Fatal(err)
		}
		// The busy control plane's garbage collector lets its heap grow
		// more (gcpacing): the most it held is what a replay costs.
		_, mem, err := framework.TreeMemory(sim.PID())
		if err != nil {
			b.Fatal(err)
		}
		peaks = append(peaks, float64(mem["sim-control-plane"].Peak>>20))
		walls = append(walls, time.Since(posted).Seconds())
		b.Logf("replay %d: lag p99 %d ms, max %d ms, %d of %d events late (> %v); %d pods scheduled, bind p50 %d ms, p99 %d ms, %d attempts; control plane peak RSS %d MiB",
			i, r.LagP99Milliseconds, r.LagMaxMilliseconds, r.Late, 2*pods, contract.LateAfter, r.PodsScheduled,
			r.BindP50Milliseconds, r.BindP99Milliseconds, r.SchedulingAttempts, mem["sim-control-plane"].Peak>>20)
		// Where the CPU went, from the POST to the report's end (the
		// runner is the simulator program's).
		var parts []string
		used := cpuUsed(cpuBefore, cpuAfter)
		for _, name := range slices.Sorted(maps.Keys(used)) {
			cpu[name] = append(cpu[name], used[name].Seconds())
			parts = append(parts, fmt.Sprintf("%s %.1f", name, used[name].Seconds()))
		}
		b.Logf("replay %d: CPU seconds by program: %s", i, strings.Join(parts, ", "))
		p99s = append(p99s, float64(r.LagP99Milliseconds))
		maxes = append(maxes, float64(r.LagMaxMilliseconds))
		lates = append(lates, float64(r.Late))
		scheduled = append(scheduled, float64(r.PodsScheduled))
		sim.Stop(b, time.Minute)
	}
	b.StopTimer()
	b.ReportMetric(framework.Median(p99s), "lag-p99-ms")
	b.ReportMetric(framework.Median(maxes), "lag-max-ms")
	b.ReportMetric(framework.Median(lates), "late-events")
	b.ReportMetric(framework.Median(scheduled), "pods-scheduled")
	// With cpu-total-s, the CPUs the replay kept busy: the report's reason
	// when the lag misses its budget on a machine with fewer.
	b.ReportMetric(framework.Median(walls), "wall-s")
	b.ReportMetric(framework.Median(peaks), "control-plane-peak-rss-MiB")
	for name, values := range cpu {
		b.ReportMetric(framework.Median(values), "cpu-"+name+"-s")
	}
}
