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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestInnerAPIServerKilled kills (SIGKILL) the inner kube-apiserver of a
// running simulator: it comes back, the simulator is Available again, and
// what was stored before is still there (etcd is another container).
func TestInnerAPIServerKilled(t *testing.T) {
	ns := newNamespace(t, "kill-")
	created, err := simClient(t).SimV1alpha1().Simulators(ns).Create(t.Context(),
		&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "kill"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := waitAvailable(t, ns, created.Name)
	pod := simulatorPod(t, s)
	inner := innerClient(t, s, pod)
	ns0 := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "before-kill"}}
	if _, err := inner.CoreV1().Namespaces().Create(t.Context(), ns0, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a namespace in the simulator: %v", err)
	}

	pid := containerProcess(t, pod, "simulator", "kube-apiserver")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the inner kube-apiserver (pid %d): %v", pid, err)
	}
	killed := time.Now()
	poll(t, "the inner kube-apiserver to answer again", availableTimeout, func(ctx context.Context) (bool, string) {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
			return false, fmt.Sprintf("pid %d still there", pid)
		}
		_, err := inner.CoreV1().Namespaces().Get(ctx, ns0.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	t.Logf("inner kube-apiserver killed → answering again in %v", time.Since(killed).Round(time.Millisecond))
	waitAvailable(t, ns, created.Name)
	current, err := hostCluster(t).Client.CoreV1().Pods(ns).Get(t.Context(), pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range current.Status.ContainerStatuses {
		t.Logf("container %s: %d restarts", cs.Name, cs.RestartCount)
	}

	// A kill heals faster than readiness notices (3 failed probes, 1 s
	// apart). An inner apiserver that hangs is noticed: the phase leaves
	// Available while it is frozen, and comes back when it resumes.
	current, err = hostCluster(t).Client.CoreV1().Pods(ns).Get(t.Context(), pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	frozen := containerProcess(t, current, "simulator", "kube-apiserver")
	if err := syscall.Kill(frozen, syscall.SIGSTOP); err != nil {
		t.Fatalf("freezing the inner kube-apiserver (pid %d): %v", frozen, err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(frozen, syscall.SIGCONT)
		}
	}
	defer resume()
	poll(t, "the phase to leave Available while the inner apiserver hangs", availableTimeout, func(ctx context.Context) (bool, string) {
		got, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return got.Status.Phase != v1alpha1.SimulatorAvailable, fmt.Sprintf("phase %s", got.Status.Phase)
	})
	resume()
	waitAvailable(t, ns, created.Name)
}

// containerProcess returns the PID of the process named name in a container
// of the Pod, failing the test if there is none.
func containerProcess(t testing.TB, pod *corev1.Pod, container, name string) int {
	t.Helper()
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name != container {
			continue
		}
		pids, err := framework.ContainerPIDs(cs.ContainerID)
		if err != nil {
			t.Fatal(err)
		}
		for _, pid := range pids {
			comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
			if err == nil && strings.TrimSpace(string(comm)) == name {
				return pid
			}
		}
		t.Fatalf("no %s process in container %s of Pod %s (pids %v)", name, container, pod.Name, pids)
	}
	t.Fatalf("Pod %s has no container %s", pod.Name, container)
	return 0
}
