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

package nodepool

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDiff(t *testing.T) {
	desired := func() *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        "p-0",
				Labels:      map[string]string{"a": "1", "type": "kwok"},
				Annotations: map[string]string{AnnotationTemplateLabels: "a"},
			},
			Spec: corev1.NodeSpec{PodCIDR: "10.0.0.0/24"},
			Status: corev1.NodeStatus{
				Capacity: corev1.ResourceList{"cpu": resource.MustParse("4")},
			},
		}
	}
	cases := []struct {
		name         string
		edit         func(current *corev1.Node)
		template     func(desired *corev1.Node)
		meta, status string
		recreate     bool
	}{
		{name: "same", edit: func(*corev1.Node) {}},
		{name: "others' keys and kwok's status stay", edit: func(n *corev1.Node) {
			n.Labels["extra"] = "x"
			n.Annotations["node.alpha.kubernetes.io/ttl"] = "0"
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
			n.Status.NodeInfo.KubeletVersion = "kwok"
		}},
		{name: "edited label is put back", edit: func(n *corev1.Node) { n.Labels["a"] = "2" }, meta: `{"metadata":{"labels":{"a":"1"}}}`},
		{name: "label the template dropped is removed", edit: func(n *corev1.Node) {
			n.Labels["gone"] = "x"
			n.Annotations[AnnotationTemplateLabels] = "a,gone"
		}, meta: `{"metadata":{"annotations":{"sim.x-k8s.io/template-labels":"a"},"labels":{"gone":null}}}`},
		{name: "taints and unschedulable", edit: func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectNoSchedule}}
			n.Spec.Unschedulable = true
		}, meta: `{"spec":{"taints":null,"unschedulable":false}}`},
		{name: "capacity", edit: func(n *corev1.Node) {
			n.Status.Capacity = corev1.ResourceList{"cpu": resource.MustParse("8"), "nvidia.com/gpu": resource.MustParse("1")}
		}, status: `{"status":{"capacity":{"cpu":"4","nvidia.com/gpu":null}}}`},
		{name: "podCIDR is immutable", edit: func(n *corev1.Node) { n.Spec.PodCIDR = "10.0.9.0/24" }, recreate: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			current := desired()
			tc.edit(current)
			want := desired()
			if tc.template != nil {
				tc.template(want)
			}
			got := diff(current, want)
			if string(got.meta) != tc.meta || string(got.status) != tc.status || got.recreate != tc.recreate {
				t.Errorf("diff = meta %s status %s recreate %v; want meta %s status %s recreate %v",
					got.meta, got.status, got.recreate, tc.meta, tc.status, tc.recreate)
			}
		})
	}
}

func TestNodeIndex(t *testing.T) {
	for name, want := range map[string]int{"p-0": 0, "p-12": 12, "p-012": -1, "p-x": -1, "q-1": -1, "p--1": -1, "p-1-2": -1} {
		i, ok := nodeIndex("p", name)
		if (want < 0) == ok || (ok && i != want) {
			t.Errorf("nodeIndex(p, %q) = %d, %v; want %d", name, i, ok, want)
		}
	}
}

func TestBornReady(t *testing.T) {
	capacity := corev1.ResourceList{"cpu": resource.MustParse("4"), "nvidia.com/gpu": resource.MustParse("1")}
	template := func() *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "p-0", Labels: map[string]string{corev1.LabelArchStable: "arm64", corev1.LabelOSStable: "linux"}},
			Status: corev1.NodeStatus{
				Capacity: capacity,
				NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.37.0"},
			},
		}
	}
	n := template()
	now := metav1.Now()
	bornReady(n, now)
	// Ready when created, and nothing keeps Pods off it: kwok plays the Pods
	// bound to a Node from the moment it sees the Node.
	if !ready(n) || len(n.Spec.Taints) != 0 {
		t.Errorf("a Node born Ready: Ready %v, taints %v; want Ready, none", ready(n), n.Spec.Taints)
	}
	for _, c := range n.Status.Conditions {
		if c.LastHeartbeatTime != now || c.LastTransitionTime != now {
			t.Errorf("condition %s: heartbeat %v, transition %v; want %v", c.Type, c.LastHeartbeatTime, c.LastTransitionTime, now)
		}
	}
	info := n.Status.NodeInfo
	if info.KubeletVersion != "v1.37.0" || info.ContainerRuntimeVersion != fakeVersion || info.Architecture != "arm64" || info.OperatingSystem != "linux" {
		t.Errorf("nodeInfo = %+v, want the template's kubelet version and the labels' platform", info)
	}
	if n.Status.Phase != corev1.NodeRunning || n.Status.Allocatable.Cpu().Cmp(resource.MustParse("4")) != 0 {
		t.Errorf("phase %q, allocatable %v; want Running, the capacity", n.Status.Phase, n.Status.Allocatable)
	}
	// What the pool writes at birth is what its template asks: nothing to patch after.
	if c := diff(n, template()); !c.none() {
		t.Errorf("a Node born Ready differs from its template: meta %s status %s recreate %v", c.meta, c.status, c.recreate)
	}
}
