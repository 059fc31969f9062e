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
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// postScenarioRun POSTs run and returns the answer's status and body.
func postScenarioRun(t *testing.T, sim *framework.StandaloneSimulator, run *contract.ScenarioRun) (int, string) {
	t.Helper()
	body, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	return sim.Do(t, http.MethodPost, contract.PathScenario, string(body))
}

// scenarioRunReport is GET contract.PathScenario, and its raw JSON.
func scenarioRunReport(t *testing.T, sim *framework.StandaloneSimulator) (contract.ScenarioReport, string) {
	t.Helper()
	code, body := sim.Do(t, http.MethodGet, contract.PathScenario, "")
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", contract.PathScenario, code, body)
	}
	var r contract.ScenarioReport
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	return r, body
}

// waitScenarioRunEnd waits for the run to succeed or fail.
func waitScenarioRunEnd(t *testing.T, sim *framework.StandaloneSimulator, timeout time.Duration) (contract.ScenarioReport, string) {
	t.Helper()
	var r contract.ScenarioReport
	var body string
	framework.WaitUntil(t, timeout, "the scenario run's end", func() (bool, error) {
		if sim.Exited() {
			return false, fmt.Errorf("simulator exited: %v", sim.Err())
		}
		r, body = scenarioRunReport(t, sim)
		return r.Phase == contract.ScenarioRunSucceeded || r.Phase == contract.ScenarioRunFailed, nil
	})
	return r, body
}

func rawObject(t *testing.T, obj any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestScenarioRun runs a timeline in a simulator of 20 kwok Nodes: a
// Deployment of 30 Pods, a wait for them to settle, a scale down to 10;
// the report says what the scheduler did, and how late the steps were.
func TestScenarioRun(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/scenario/uid-1")
	sim.WaitReady(t, 2*time.Minute)
	c := sim.Client(t)
	createNodes(t, c, "node", 20, true)

	if code, body := sim.Do(t, http.MethodGet, contract.PathScenario, ""); code != http.StatusNotFound {
		t.Errorf("GET %s before any run = %d %s, want 404", contract.PathScenario, code, body)
	}
	if code, body := sim.Do(t, http.MethodPost, contract.PathScenario, `{"steps":`); code != http.StatusBadRequest {
		t.Errorf("POST of a broken run = %d %s, want 400", code, body)
	}

	deploy := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptrTo[int32](30),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate("web"),
		},
	}
	// 2 CPUs a Pod: at most 4 of them on a Node of 8.
	deploy.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
	run := &contract.ScenarioRun{
		RunID:                "uid-timeline",
		StartTime:            time.Now().Add(2 * time.Second),
		DurationMilliseconds: 20_000,
		SampleMilliseconds:   500,
		Steps: []contract.ScenarioRunStep{
			{AtMilliseconds: 0, Create: []json.RawMessage{rawObject(t, deploy)}},
			{AtMilliseconds: 100, Wait: &contract.ScenarioRunWait{For: contract.WaitForPodsSettled, TimeoutMilliseconds: 60_000}},
			// Due while the wait waits: late by as much.
			{AtMilliseconds: 200, Scale: &contract.ScenarioRunScale{Kind: contract.ScaleKindDeployment, Name: "web", Replicas: 10}},
			{AtMilliseconds: 10_000, Wait: &contract.ScenarioRunWait{For: contract.WaitForPodsSettled, TimeoutMilliseconds: 5_000}},
		},
	}
	if code, body := postScenarioRun(t, sim, run); code != http.StatusAccepted {
		t.Fatalf("POST %s = %d %s, want 202", contract.PathScenario, code, body)
	}
	if code, body := postScenarioRun(t, sim, run); code != http.StatusConflict {
		t.Errorf("POST while a run waits = %d %s, want 409", code, body)
	}
	r, body := waitScenarioRunEnd(t, sim, 2*time.Minute)
	t.Logf("report: %s", body)
	if r.Phase != contract.ScenarioRunSucceeded || r.Message != "" {
		t.Fatalf("run %s: %q", r.Phase, r.Message)
	}
	if r.RunID != run.RunID || r.Generation != 1 {
		t.Errorf("report of run %q, generation %d", r.RunID, r.Generation)
	}
	if r.PodsScheduled < 30 || r.PodsUnschedulable != 0 {
		t.Errorf("%d pods scheduled, %d unschedulable; want ≥ 30, 0", r.PodsScheduled, r.PodsUnschedulable)
	}
	if r.NodesUsed <= 0 || r.CPUMeanPercent <= 0 || r.BindP50Milliseconds <= 0 || r.SchedulingAttempts < 30 {
		t.Errorf("nodes used %d, CPU mean %d%%, bind p50 %d ms, attempts %d; want all set", r.NodesUsed, r.CPUMeanPercent, r.BindP50Milliseconds, r.SchedulingAttempts)
	}
	if r.ElapsedMilliseconds < run.DurationMilliseconds || len(r.Samples) < 30 {
		t.Errorf("elapsed %d ms, %d samples; want ≥ %d ms, ≥ 30", r.ElapsedMilliseconds, len(r.Samples), run.DurationMilliseconds)
	}
	if last := r.Samples[len(r.Samples)-1]; last.PodsBound != 10 || last.PodsPending != 0 {
		t.Errorf("last sample %+v, want 10 bound, 0 pending", last)
	}
	if r.LagMaxMilliseconds <= 0 || r.Late < 1 {
		t.Errorf("lag max %d ms, late %d; want the scale step late behind the wait", r.LagMaxMilliseconds, r.Late)
	}
	if r.LargestFit["cpu"] == "" || r.LargestFit["memory"] == "" {
		t.Errorf("largest fit %v", r.LargestFit)
	}

	code, body := sim.Do(t, http.MethodGet, contract.PathScenarioPlacements, "")
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", contract.PathScenarioPlacements, code, body)
	}
	var p contract.ScenarioPlacements
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	bound := 0
	for group, nodes := range p.Groups {
		if !strings.HasPrefix(group, "default/web-") || !strings.HasSuffix(group, "-*") {
			t.Errorf("placement group %q, want the ReplicaSet's default/web-HASH-*", group)
		}
		for _, n := range nodes {
			bound += int(n)
		}
	}
	if p.RunID != run.RunID || bound != 10 {
		t.Errorf("placements of %q: %d pods bound, want 10 (%s)", p.RunID, bound, body)
	}
}

// TestScenarioTrace replays a trace of 250 Pods arriving and leaving
// (500 events over 680 s) at 60×: every event is applied, Pods without
// the traced cluster's Nodes, and the lag is reported.
func TestScenarioTrace(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/trace/uid-1")
	sim.WaitReady(t, 2*time.Minute)
	c := sim.Client(t)
	createNodes(t, c, "node", 20, true)

	const pods = 250
	traceStart := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var trace []contract.TraceEvent
	for i := range pods {
		p := cpuPod(fmt.Sprintf("job-%03d", i), "500m")
		p.Namespace = "batch"
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		// As the traced cluster had it: bound there.
		p.Spec.NodeName = "source-node"
		trace = append(trace, contract.TraceEvent{Time: traceStart.Add(time.Duration(i) * 2 * time.Second), Type: "ADDED",
			Resource: "pods", Namespace: "batch", Name: p.Name, Object: rawObject(t, p)})
	}
	for i := range pods {
		// Each lives three minutes of the trace's time (3 s at 60×: under
		// CI's load binding took up to 1.2 s, and a Pod gone before it was
		// bound is not counted scheduled); ~90 live at once fit the 20
		// Nodes' 160 CPUs. The trace is in the order it was seen.
		trace = append(trace, contract.TraceEvent{Time: traceStart.Add(time.Duration(i)*2*time.Second + 3*time.Minute), Type: "DELETED",
			Resource: "pods", Namespace: "batch", Name: fmt.Sprintf("job-%03d", i)})
	}
	run := &contract.ScenarioRun{
		RunID:     "uid-trace",
		StartTime: time.Now().Add(2 * time.Second),
		// 740 s of the trace, at 60×.
		DurationMilliseconds: 740_000 / 60,
		Speed:                60,
		SampleMilliseconds:   250,
		Trace:                trace,
	}
	if code, body := postScenarioRun(t, sim, run); code != http.StatusAccepted {
		t.Fatalf("POST %s = %d %s, want 202", contract.PathScenario, code, body)
	}
	r, body := waitScenarioRunEnd(t, sim, 2*time.Minute)
	if r.Phase != contract.ScenarioRunSucceeded {
		t.Fatalf("run %s: %q", r.Phase, r.Message)
	}
	if r.EventsApplied != 2*pods || r.EventsFailed != 0 {
		t.Errorf("%d events applied, %d failed; want %d, 0", r.EventsApplied, r.EventsFailed, 2*pods)
	}
	if !strings.Contains(body, `"late":`) || !strings.Contains(body, `"lagP99Milliseconds":`) {
		t.Errorf("the report does not say how late the events were: %s", body)
	}
	t.Logf("replay of %d events at 60×: lag p99 %d ms, max %d ms, %d late (> %v); %d pods scheduled, bind p50 %d ms, p99 %d ms",
		2*pods, r.LagP99Milliseconds, r.LagMaxMilliseconds, r.Late, contract.LateAfter, r.PodsScheduled, r.BindP50Milliseconds, r.BindP99Milliseconds)
	// Each Pod was bound here (by this scheduler: its traced Node does not
	// exist) before it left.
	if r.PodsScheduled < pods*9/10 {
		t.Errorf("%d pods scheduled, want about %d", r.PodsScheduled, pods)
	}
	left, err := c.CoreV1().Pods("batch").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(left.Items) != 0 {
		t.Errorf("%d traced pods left, want all deleted", len(left.Items))
	}
}
