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

package snapshot

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

func TestExportImport(t *testing.T) {
	ctx := t.Context()
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid"}
	src := fake.NewClientset([]runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default", UID: "ns-default"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", UID: "ns-team"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "node-uid", ResourceVersion: "7"},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}}},
		&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: 2000001000},
		&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web-1", UID: "pod-uid", ResourceVersion: "9", OwnerReferences: []metav1.OwnerReference{owner}, Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{NodeName: "n1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
	}...)
	snap, err := Export(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.PriorityClasses) != 1 || snap.PriorityClasses[0].Name != "high" {
		t.Errorf("exported priority classes %v, want only high (system-* are the apiserver's)", snap.PriorityClasses)
	}
	dst := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	res, err := Import(ctx, dst, snap)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"namespaces": 1, "priorityClasses": 1, "nodes": 1, "pods": 1}, res.Created); d != "" {
		t.Errorf("created (-want +got):\n%s", d)
	}
	pod, err := dst.CoreV1().Pods("team").Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := metav1.ObjectMeta{Namespace: "team", Name: "web-1", Labels: map[string]string{"app": "web"}}
	pod.ManagedFields = nil // the fake's own
	if d := cmp.Diff(want, pod.ObjectMeta); d != "" {
		t.Errorf("imported pod metadata (-want +got):\n%s", d)
	}
	if pod.Spec.NodeName != "n1" || pod.Status.Phase != "" {
		t.Errorf("imported pod on %q in phase %q, want bound to n1 with no status", pod.Spec.NodeName, pod.Status.Phase)
	}
	node, err := dst.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if node.UID != "" || node.Status.Allocatable.Cpu().String() != "8" {
		t.Errorf("imported node: uid %q, allocatable cpu %s", node.UID, node.Status.Allocatable.Cpu())
	}
}
