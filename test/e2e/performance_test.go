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

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestCreateToAvailable creates simulators one after the other and logs the
// median time from create to Available, and the memory of a simulator
// Pod's processes once Available. Figures, not assertions: the machine is
// shared.
func TestCreateToAvailable(t *testing.T) {
	const runs = 5
	c := hostCluster(t)
	ns := newNamespace(t, "perf-")
	client := simClient(t).SimV1alpha1().Simulators(ns)
	var times []time.Duration
	for i := range runs {
		name := fmt.Sprintf("perf-%d", i)
		start := time.Now()
		if _, err := client.Create(t.Context(), &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		s := waitAvailable(t, ns, name)
		elapsed := time.Since(start)
		times = append(times, elapsed)
		t.Logf("simulator %d: create → Available in %v", i, elapsed.Round(time.Millisecond))

		pod := simulatorPod(t, s)
		checkPodOnNode(t, pod)
		if i == 0 {
			logPodMemory(t, pod)
		}
		if err := client.Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		// One at a time: wait until the Pod is gone from the node.
		poll(t, "the Pod of "+name+" to be gone", time.Minute, func(ctx context.Context) (bool, string) {
			pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator + "=" + name})
			if err != nil {
				return false, err.Error()
			}
			return len(pods.Items) == 0, fmt.Sprintf("%d Pods", len(pods.Items))
		})
	}
	slices.Sort(times)
	t.Logf("create → Available over %d simulators: median %v, min %v, max %v",
		runs, times[runs/2].Round(time.Millisecond), times[0].Round(time.Millisecond), times[runs-1].Round(time.Millisecond))
}

// logPodMemory logs the resident memory (VmRSS) of every process of each
// container of the Pod, read from /proc through the containers' cgroups.
func logPodMemory(t testing.TB, pod *corev1.Pod) {
	t.Helper()
	var total int64
	for _, cs := range pod.Status.ContainerStatuses {
		pids, err := framework.ContainerPIDs(cs.ContainerID)
		if err != nil {
			t.Errorf("container %s: %v", cs.Name, err)
			continue
		}
		var container int64
		var parts []string
		for _, pid := range pids {
			name, rss, err := processRSS(pid)
			if err != nil {
				continue // exited meanwhile
			}
			container += rss
			parts = append(parts, fmt.Sprintf("%s %d MiB", name, rss>>20))
		}
		total += container
		t.Logf("Pod %s container %s: RSS %d MiB (%s)", pod.Name, cs.Name, container>>20, strings.Join(parts, ", "))
	}
	if total == 0 {
		t.Errorf("no process found in the containers of Pod %s", pod.Name)
	}
	t.Logf("Pod %s: RSS %d MiB in all", pod.Name, total>>20)
}

// processRSS returns a process's name and resident set size in bytes.
func processRSS(pid int) (string, int64, error) {
	rss, err := framework.ProcessRSS(pid)
	if err != nil {
		return "", 0, err
	}
	comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(comm)), rss, err
}
