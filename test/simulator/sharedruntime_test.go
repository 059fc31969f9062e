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
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestSharedRuntime runs a simulator as shipped, its kube-apiserver,
// kube-controller-manager, kwok and sim-scheduler in one process: each
// does its part, the scheduler takes a new configuration within the
// process, and the process, killed, is started again with all four.
func TestSharedRuntime(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/shared/uid-1")
	took := sim.WaitReady(t, 2*time.Minute)
	t.Logf("simulator ready %v after start", took.Round(time.Millisecond))
	c := sim.Client(t)
	ctx := framework.TimeoutContext(t, 5*time.Minute)
	if names := slices.Sorted(maps.Keys(sim.Processes(t))); !slices.Equal(names, []string{"control-plane"}) {
		t.Fatalf("children %v, want control-plane alone", names)
	}
	first := sim.Processes(t)["control-plane"]

	// kwok makes the Node Ready and runs the Pod sim-scheduler bound and
	// recorded.
	if _, err := c.CoreV1().Nodes().Create(ctx, fakeNode("fake-0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitNodeReady(t, c, "fake-0")
	if _, err := c.CoreV1().Pods("default").Create(ctx, testPod("default", "web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodRunning(t, c, "default", "web", "fake-0")
	framework.WaitUntil(t, 30*time.Second, "the Pod's scheduling result", func() (bool, error) {
		pod, err := c.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && pod.Annotations[summaryAnnotation] != "", nil
	})
	total, byName, err := framework.TreeMemory(sim.PID())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("RSS of the simulator process tree with 1 node and 1 pod: %d MiB (sim-control-plane %d MiB, anonymous %d)",
		total.RSS>>20, byName["sim-control-plane"].RSS>>20, byName["sim-control-plane"].Anon>>20)

	// kube-controller-manager makes the Deployment's Pods.
	labels := map[string]string{"app": "shared"}
	template := testPod("default", "")
	template.Labels = labels
	if _, err := c.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: template.ObjectMeta, Spec: template.Spec},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodsRunning(t, c, "default", "app=shared", "fake-0", 2)

	// kube-apiserver serves the other three within the process: their
	// watches and writes above held no connection to its port. One is
	// kube-apiserver's own loopback client's (its informers), made with
	// its configuration before it serves; each of the three held one or
	// more of their own before.
	apiURL, err := url.Parse(sim.APIURL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(apiURL.Port())
	if err != nil {
		t.Fatal(err)
	}
	if n, err := framework.ConnectionsTo(first.PID, port); err != nil || n > 1 {
		t.Errorf("control-plane holds %d connections to its kube-apiserver's port %d (%v), want kube-apiserver's own at most: its components served in-process", n, port, err)
	}

	// A new scheduler configuration restarts sim-scheduler in the process:
	// only a scheduler running it binds Pods of its second profile.
	if status, body := sim.Do(t, http.MethodPut, schedulerConfigPath, binPacking); status != http.StatusOK {
		t.Fatalf("PUT = %d %s", status, body)
	}
	pod := testPod("default", "bin-packed")
	pod.Spec.SchedulerName = "bin-packing"
	if _, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodRunning(t, c, "default", "bin-packed", "fake-0")
	if now := sim.Processes(t)["control-plane"]; now.PID != first.PID || now.Starts != first.Starts {
		t.Errorf("control-plane went from %+v to %+v, want the same process (the scheduler restarted within it)", first, now)
	}

	// Killed, the process is started again, with all four.
	sim.Kill(t, "control-plane")
	framework.WaitUntil(t, time.Minute, "readyz to fail", func() (bool, error) { return sim.ReadyzStatus() != http.StatusOK, nil })
	framework.WaitUntil(t, 90*time.Second, "readyz to pass again", func() (bool, error) { return sim.ReadyzStatus() == http.StatusOK, nil })
	if now := sim.Processes(t)["control-plane"]; now.PID == first.PID || now.Starts != first.Starts+1 {
		t.Errorf("control-plane went from %+v to %+v, want one restart", first, now)
	}
	after := testPod("default", "after-kill")
	after.Spec.SchedulerName = "bin-packing"
	if _, err := c.CoreV1().Pods("default").Create(ctx, after, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodRunning(t, c, "default", "after-kill", "fake-0")
}
