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

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestPodTemplate runs a simulator whose podTemplate adds a label, limits
// the simulator container and sets its SIMULATOR_SHARED_RUNTIME=false: the
// Pod carries them, the node's cgroup enforces the limit, and the simulator
// is Available within it, its control plane four processes (a
// kube-apiserver of its own, no sim-control-plane).
func TestPodTemplate(t *testing.T) {
	ns := newNamespace(t, "template-")
	limit := resource.MustParse("1Gi")
	created, err := simClient(t).SimV1alpha1().Simulators(ns).Create(t.Context(), &v1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: "template"},
		Spec: v1alpha1.SimulatorSpec{PodTemplate: &corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "e2e"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: contract.SimulatorContainer,
				Resources: corev1.ResourceRequirements{
					Limits: corev1.ResourceList{corev1.ResourceMemory: limit},
				},
				Env: []corev1.EnvVar{{Name: contract.EnvSharedRuntime, Value: "false"}},
			}}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := simulatorPod(t, waitAvailable(t, ns, created.Name))
	checkPodOnNode(t, pod)
	if pod.Labels["team"] != "e2e" {
		t.Errorf("Pod labels %v lack the template's team=e2e", pod.Labels)
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name != contract.SimulatorContainer {
			continue
		}
		got, err := framework.ContainerMemoryLimit(cs.ContainerID)
		if err != nil {
			t.Fatal(err)
		}
		if got != limit.Value() {
			t.Errorf("memory limit of the simulator container's cgroup = %d, want %d", got, limit.Value())
		}
		containerProcess(t, pod, contract.SimulatorContainer, "kube-apiserver")
		pids, err := framework.ContainerPIDs(cs.ContainerID)
		if err != nil {
			t.Fatal(err)
		}
		for _, pid := range pids {
			if comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm")); err == nil && strings.TrimSpace(string(comm)) == controlPlaneComm {
				t.Errorf("a sim-control-plane process (%d) runs beside the separate processes", pid)
			}
		}
		return
	}
	t.Errorf("Pod %s has no %s container", pod.Name, contract.SimulatorContainer)
}

// TestExternalEtcd runs an etcd in a Pod of the node and a simulator with
// etcdURL pointing at it: the simulator's Pod has no etcd container, its
// inner kube-apiserver stores under the simulator's prefix, and deleting the
// simulator purges that prefix.
func TestExternalEtcd(t *testing.T) {
	ns := newNamespace(t, "etcd-")
	etcdURL := startEtcdPod(t, ns)

	created, err := simClient(t).SimV1alpha1().Simulators(ns).Create(t.Context(), &v1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: "external"},
		Spec:       v1alpha1.SimulatorSpec{EtcdURL: etcdURL},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := waitAvailable(t, ns, created.Name)
	pod := simulatorPod(t, s)
	checkPodOnNode(t, pod)
	for _, container := range pod.Spec.Containers {
		if container.Name == contract.EtcdContainer {
			t.Errorf("Pod %s has an etcd container although spec.etcdURL is set", pod.Name)
		}
	}

	etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = etcd.Close() }()
	prefix := backing.EtcdPrefix(s) + "/"
	count := func(ctx context.Context) (int64, error) {
		resp, err := etcd.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return 0, err
		}
		return resp.Count, nil
	}
	n, err := count(t.Context())
	if err != nil {
		t.Fatalf("reading the external etcd: %v", err)
	}
	if n == 0 {
		t.Fatalf("no keys under %s in the external etcd", prefix)
	}
	t.Logf("%d keys under %s in the external etcd", n, prefix)

	if err := simClient(t).SimV1alpha1().Simulators(ns).Delete(t.Context(), created.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the simulator's keys to be purged", time.Minute, func(ctx context.Context) (bool, string) {
		n, err := count(ctx)
		if err != nil {
			return false, err.Error()
		}
		_, err = simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, created.Name, metav1.GetOptions{})
		return n == 0 && err != nil, fmt.Sprintf("%d keys, simulator get: %v", n, err)
	})
}

// TestEtcdUnavailableSaysWhy runs a simulator whose etcdURL names a port
// of the etcd Pod where nothing listens: on the real node the simulator
// container ends with its reason as its termination message (the kubelet
// copies it into the Pod), and the simulator's status says EtcdUnavailable
// and why. Pointed at the etcd, it becomes Available.
func TestEtcdUnavailableSaysWhy(t *testing.T) {
	ns := newNamespace(t, "etcd-down-")
	etcdURL := startEtcdPod(t, ns)
	closed := strings.TrimSuffix(etcdURL, ":2379") + ":2390"
	sims := simClient(t).SimV1alpha1().Simulators(ns)
	if _, err := sims.Create(t.Context(), &v1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: "down"},
		Spec:       v1alpha1.SimulatorSpec{EtcdURL: closed},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var down *v1alpha1.Simulator
	// The simulator gives kube-apiserver 30 s before it probes etcd.
	poll(t, "the status to say why", 3*time.Minute, func(ctx context.Context) (bool, string) {
		got, err := sims.Get(ctx, "down", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		down = got
		cond := availableCondition(*got)
		return cond != nil && cond.Reason == "EtcdUnavailable" && strings.Contains(got.Status.Message, "etcd "+closed+": ") &&
			strings.Contains(got.Status.Message, "connection refused"), phaseAndReason(*got) + ": " + got.Status.Message
	})
	t.Logf("status: %s: %s", phaseAndReason(*down), down.Status.Message)
	pod := simulatorPod(t, down)
	statuses := pod.Status.ContainerStatuses
	i := slices.IndexFunc(statuses, func(cs corev1.ContainerStatus) bool { return cs.Name == contract.SimulatorContainer })
	if i < 0 {
		t.Fatalf("Pod %s has no status of container %s: %+v", pod.Name, contract.SimulatorContainer, statuses)
	}
	cs := statuses[i]
	last := cs.State.Terminated // exited, not started again yet
	if last == nil {
		last = cs.LastTerminationState.Terminated
	}
	if last == nil || !strings.HasPrefix(last.Message, "EtcdUnavailable: ") {
		t.Errorf("container %s's last termination %+v (state %+v), want the message EtcdUnavailable: …", cs.Name, last, cs.State)
	}

	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := sims.Get(t.Context(), "down", metav1.GetOptions{})
		if err != nil {
			return err
		}
		got.Spec.EtcdURL = etcdURL
		_, err = sims.Update(t.Context(), got, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	waitAvailable(t, ns, "down")
}

// startEtcdPod runs etcd (from the simulator image, as the simulator Pods
// do) in a Pod of the node, listening on its Pod IP, and returns its URL.
func startEtcdPod(t testing.TB, ns string) string {
	t.Helper()
	c := hostCluster(t)
	image := simulatorImage(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "etcd", Namespace: ns},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:            "etcd",
				Image:           image,
				ImagePullPolicy: corev1.PullNever,
				Command:         []string{"etcd"},
				Args: []string{
					"--data-dir=/var/lib/etcd",
					"--listen-client-urls=http://0.0.0.0:2379",
					"--advertise-client-urls=http://$(POD_IP):2379",
					"--listen-peer-urls=http://127.0.0.1:2380",
					"--log-level=warn",
				},
				Env: []corev1.EnvVar{{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{
					FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"},
				}}},
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/etcd"}},
			}},
			Volumes:                      []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			AutomountServiceAccountToken: ptr.To(false),
		},
	}
	if _, err := c.Client.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the etcd Pod: %v", err)
	}
	var url string
	poll(t, "the etcd Pod to run", time.Minute, func(ctx context.Context) (bool, string) {
		got, err := c.Client.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if got.Status.Phase != corev1.PodRunning || got.Status.PodIP == "" {
			return false, string(got.Status.Phase)
		}
		url = "http://" + got.Status.PodIP + ":2379"
		return true, ""
	})
	return url
}

// simulatorImage returns the simulator image the node has.
func simulatorImage(t testing.TB) string {
	t.Helper()
	c := hostCluster(t)
	node, err := c.Client.CoreV1().Nodes().Get(t.Context(), c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, image := range node.Status.Images {
		for _, name := range image.Names {
			if strings.HasPrefix(name, "sim.x-k8s.io/simulator:") {
				return name
			}
		}
	}
	t.Fatalf("node %s has no simulator image: %v", c.NodeName, node.Status.Images)
	return ""
}
