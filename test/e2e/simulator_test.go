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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// TestExampleSimulator is the README's path: kubectl apply the example,
// kubectl wait for Available; then the inner control plane works through the
// Pod IP: its scheduler binds a pod to a fake node kwok keeps Ready. Deleting
// the simulator stops its Pod on the node. The namespace enforces the
// restricted Pod Security Standard: the simulator runs unprivileged. Its
// own API is refused to the node's network and governed by host RBAC
// through the host (checkSimulatorAPIGuarded).
func TestExampleSimulator(t *testing.T) {
	c := hostCluster(t)
	ns := newNamespace(t, "example-")
	if _, err := kubectl(t, "label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted"); err != nil {
		t.Fatal(err)
	}
	if _, err := kubectl(t, "apply", "-n", ns, "-f", "artifacts/examples/simulator.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := kubectl(t, "wait", "-n", ns, "--for=jsonpath={.status.phase}=Available", "simulator/example", "--timeout=120s"); err != nil {
		t.Fatal(err)
	}
	s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(t.Context(), "example", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("https://sim-example.%s.svc:3131", ns); s.Status.KubeAPIServerURL != want {
		t.Errorf("status.kubeAPIServerURL = %q, want %q", s.Status.KubeAPIServerURL, want)
	}
	pod := simulatorPod(t, s)
	checkPodOnNode(t, pod)

	inner := innerClient(t, s, pod)
	version, err := inner.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("inner kube-apiserver at %s: %v", pod.Status.PodIP, err)
	}
	t.Logf("inner kube-apiserver %s answers at Pod IP %s", version.GitVersion, pod.Status.PodIP)
	scheduleOnFakeNode(t, inner)
	checkSimulatorAPIGuarded(t, s, pod, inner)

	if _, err := kubectl(t, "delete", "-n", ns, "simulator/example", "--timeout=60s"); err != nil {
		t.Fatal(err)
	}
	poll(t, "the simulator's Pod to be gone from the node", time.Minute, func(ctx context.Context) (bool, string) {
		pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator + "=example"})
		if err != nil {
			return false, err.Error()
		}
		return len(pods.Items) == 0, fmt.Sprintf("%d Pods", len(pods.Items))
	})
}

// scheduleOnFakeNode creates a fake Node (kwok's annotation) and a Pod in
// the simulator and waits until the inner scheduler binds the Pod to it and
// kwok runs it.
func scheduleOnFakeNode(t testing.TB, inner kubernetes.Interface) {
	t.Helper()
	ctx := t.Context()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "fake-0",
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels:      map[string]string{"type": "kwok"},
		},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("16"),
				corev1.ResourceMemory: resource.MustParse("64Gi"),
				corev1.ResourcePods:   resource.MustParse("110"),
			},
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("16"),
				corev1.ResourceMemory: resource.MustParse("64Gi"),
				corev1.ResourcePods:   resource.MustParse("110"),
			},
		},
	}
	if _, err := inner.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a fake node in the simulator: %v", err)
	}
	poll(t, "kwok to make the fake node Ready", time.Minute, func(ctx context.Context) (bool, string) {
		got, err := inner.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				return cond.Status == corev1.ConditionTrue, fmt.Sprintf("Ready=%s", cond.Status)
			}
		}
		return false, "no Ready condition"
	})

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: metav1.NamespaceDefault},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  "hello",
			Image: "registry.example/hello:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi"),
			}},
		}}},
	}
	createPod(t, inner, pod)
	poll(t, "the inner scheduler to bind the pod and kwok to run it", time.Minute, func(ctx context.Context) (bool, string) {
		got, err := inner.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return got.Spec.NodeName == node.Name && got.Status.Phase == corev1.PodRunning,
			fmt.Sprintf("node %q, phase %s", got.Spec.NodeName, got.Status.Phase)
	})
}

// TestPodRecreated deletes a simulator's host Pod: the reconciler makes a
// new one, which runs on the node, and the simulator is Available again
// with its inner kube-apiserver answering at the new Pod's IP.
func TestPodRecreated(t *testing.T) {
	c := hostCluster(t)
	ns := newNamespace(t, "recreate-")
	created, err := simClient(t).SimV1alpha1().Simulators(ns).Create(t.Context(),
		&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "recreate"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old := simulatorPod(t, waitAvailable(t, ns, created.Name))
	if err := c.Client.CoreV1().Pods(ns).Delete(t.Context(), old.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting the simulator's Pod: %v", err)
	}
	deleted := time.Now()
	var pod *corev1.Pod
	poll(t, "a new Pod, Available", availableTimeout, func(ctx context.Context) (bool, string) {
		s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if s.Status.Phase != v1alpha1.SimulatorAvailable || s.Status.PodName == "" {
			return false, fmt.Sprintf("phase %s: %s", s.Status.Phase, s.Status.Message)
		}
		got, err := c.Client.CoreV1().Pods(ns).Get(ctx, s.Status.PodName, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		pod = got
		return got.UID != old.UID, fmt.Sprintf("Available with Pod %s (%s)", got.Name, got.UID)
	})
	t.Logf("Pod deleted → new Pod Available in %v", time.Since(deleted).Round(time.Millisecond))
	checkPodOnNode(t, pod)
	s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(t.Context(), created.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := innerClient(t, s, pod).Discovery().ServerVersion(); err != nil {
		t.Errorf("inner kube-apiserver at the new Pod IP %s: %v", pod.Status.PodIP, err)
	}
}
