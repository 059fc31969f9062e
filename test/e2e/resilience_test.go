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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestInnerAPIServerKilled kills (SIGKILL) the process of the inner
// kube-apiserver of a running simulator (as shipped, the one process of its
// control plane): it comes back, the simulator is Available again, and
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

	pid := containerProcess(t, pod, contract.SimulatorContainer, controlPlaneComm)
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
	frozen := containerProcess(t, current, contract.SimulatorContainer, controlPlaneComm)
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

// controlPlaneComm is how /proc names the process of a simulator's control
// plane (sim-control-plane, cut to the kernel's 15 characters).
var controlPlaneComm = "sim-control-plane"[:15]

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

// nodeDownTimeout bounds how long the node controller takes to find a
// stopped kubelet's node unreachable: its grace period (50 s by default)
// and room for a loaded machine.
const nodeDownTimeout = 3 * time.Minute

// TestKubeletRestart stops the node's kubelet and starts it again, as a
// kubelet upgrade does. The containers run on under containerd meanwhile;
// once the node controller finds the node unreachable it marks the Pod not
// Ready, so the simulator reads Creating and its proxy answers 503 saying
// why. When the kubelet is back, the same Pod (same containers, same inner
// etcd) is Ready again: the simulator is Available with every object
// written before and during the outage.
func TestKubeletRestart(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := newNamespace(t, "kubelet-")
	const name = "steady"
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx,
		&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := simulatorPod(t, waitAvailable(t, ns, name))
	inner := proxyClient(t, ns, name)
	create := func(cmName string) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cmName}, Data: map[string]string{"written": cmName}}
		if _, err := inner.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating ConfigMap %s in the simulator through the proxy: %v", cmName, err)
		}
	}
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprintf("before-%d", i))
		create(want[i])
	}

	if err := c.StopKubelet(ctx); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	running := false
	startKubelet := func() error {
		if running {
			return nil
		}
		running = true
		return c.StartKubelet(context.WithoutCancel(ctx))
	}
	// Later tests need the node, whatever happens here.
	t.Cleanup(func() {
		if err := startKubelet(); err != nil {
			t.Errorf("starting the kubelet again: %v", err)
		}
	})

	// Nothing has noticed yet: the Pod runs on and the proxy reaches it.
	want = append(want, "while-kubelet-down")
	create(want[len(want)-1])
	var down *v1alpha1.Simulator
	poll(t, "the simulator to leave Available once the node is unreachable", nodeDownTimeout, func(ctx context.Context) (bool, string) {
		s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		down = s
		return s.Status.Phase != v1alpha1.SimulatorAvailable, fmt.Sprintf("phase %s: %s", s.Status.Phase, s.Status.Message)
	})
	t.Logf("kubelet stopped → simulator %s after %v: %s", down.Status.Phase, time.Since(stopped).Round(time.Second), down.Status.Message)
	if down.Status.Phase != v1alpha1.SimulatorCreating {
		t.Errorf("with the node unreachable the simulator is %s (%s), want Creating: its Pod is scheduled, not Ready", down.Status.Phase, down.Status.Message)
	}
	node, err := c.Client.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			t.Logf("node %s: Ready=%s %s: %s", node.Name, cond.Status, cond.Reason, cond.Message)
		}
	}
	_, err = inner.CoreV1().ConfigMaps("default").Get(ctx, want[0], metav1.GetOptions{})
	if !apierrors.IsServiceUnavailable(err) {
		t.Errorf("the proxy of a simulator that is not Available answered %v, want 503", err)
	} else {
		t.Logf("proxy while not Available: %v", err)
	}

	started := time.Now()
	if err := startKubelet(); err != nil {
		t.Fatalf("starting the kubelet again: %v", err)
	}
	t.Logf("kubelet down %v; node Ready again %v after its start", started.Sub(stopped).Round(time.Second), time.Since(started).Round(100*time.Millisecond))
	back := waitAvailable(t, ns, name)
	t.Logf("simulator Available again %v after the kubelet started", time.Since(started).Round(100*time.Millisecond))
	current := simulatorPod(t, back)
	if current.UID != pod.UID || current.Status.PodIP != pod.Status.PodIP {
		t.Errorf("the simulator's Pod was replaced: %s (%s, %s) → %s (%s, %s)", pod.Name, pod.UID, pod.Status.PodIP, current.Name, current.UID, current.Status.PodIP)
	}
	for _, cs := range current.Status.ContainerStatuses {
		t.Logf("container %s: %d restarts", cs.Name, cs.RestartCount)
	}
	// The inner etcd kept everything: the objects of before and during.
	list, err := inner.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, cm := range list.Items {
		got[cm.Name] = cm.Data["written"]
	}
	for _, n := range want {
		if got[n] != n {
			t.Errorf("ConfigMap %s after the kubelet restart: %q, want it as written", n, got[n])
		}
	}
}
