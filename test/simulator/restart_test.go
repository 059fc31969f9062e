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
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// binPacking is a configuration with a second profile: only a scheduler
// running it binds Pods of schedulerName bin-packing.
const binPacking = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packing
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`

// TestRestartKeepsSchedulerConfiguration: a restart of the simulator
// container, whose Pod keeps its volumes (its etcd, its data directory),
// keeps the scheduler configuration set through the API (GET answers it
// and the scheduler runs it) and the results of the Pods scheduled before.
// A reset still puts the simulator's own configuration back, and the next
// restart keeps that one.
func TestRestartKeepsSchedulerConfiguration(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/restart/uid-1")
	sim.WaitReady(t, 2*time.Minute)
	c := sim.Client(t)
	ctx := framework.TimeoutContext(t, 5*time.Minute)
	if _, err := c.CoreV1().Nodes().Create(ctx, fakeNode("fake-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitNodeReady(t, c, "fake-0")
	_, own := sim.Do(t, http.MethodGet, schedulerConfigPath, "")
	status, set := sim.Do(t, http.MethodPut, schedulerConfigPath, binPacking)
	if status != http.StatusOK {
		t.Fatalf("PUT = %d %s", status, set)
	}
	framework.WaitUntil(t, 30*time.Second, "readyz after the scheduler's restart", func() (bool, error) { return sim.ReadyzStatus() == http.StatusOK, nil })
	before := testPod("default", "before")
	before.Spec.SchedulerName = "bin-packing"
	if _, err := c.CoreV1().Pods("default").Create(ctx, before, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodRunning(t, c, "default", "before", "fake-0")
	framework.WaitUntil(t, 30*time.Second, "the result of before", func() (bool, error) {
		status, _ := sim.Do(t, http.MethodGet, resultsPath+"default/before", "")
		return status == http.StatusOK, nil
	})

	sim.Restart(t)
	sim.WaitReady(t, 2*time.Minute)
	if _, got := sim.Do(t, http.MethodGet, schedulerConfigPath, ""); got != set {
		t.Errorf("after a restart GET answers another configuration than the one set:\n%s\nwant\n%s", got, set)
	}
	if status, body := sim.Do(t, http.MethodGet, resultsPath+"default/before", ""); status != http.StatusOK {
		t.Errorf("after a restart the result of a Pod scheduled before = %d %s, want 200", status, body)
	}
	after := testPod("default", "after")
	after.Spec.SchedulerName = "bin-packing"
	if _, err := c.CoreV1().Pods("default").Create(ctx, after, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodRunning(t, c, "default", "after", "fake-0")

	status, body := sim.Do(t, http.MethodPut, "/api/v1/reset", "{}")
	if status != http.StatusOK || !strings.Contains(body, `"schedulerConfigurationRestored":true`) {
		t.Errorf("reset after a restart = %d %s, want the configuration restored", status, body)
	}
	sim.Restart(t)
	sim.WaitReady(t, 2*time.Minute)
	if _, got := sim.Do(t, http.MethodGet, schedulerConfigPath, ""); got != own {
		t.Errorf("after a reset and a restart GET answers another configuration than the simulator's own:\n%s\nwant\n%s", got, own)
	}
}
