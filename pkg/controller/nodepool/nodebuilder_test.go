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
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

func TestRenderNode(t *testing.T) {
	capacity := corev1.ResourceList{"cpu": resource.MustParse("4"), "nvidia.com/gpu": resource.MustParse("2")}
	tmpl := &v1alpha1.NodeTemplate{
		Metadata: v1alpha1.NodeTemplateMetadata{
			Labels:      map[string]string{"zone": "z-{{ mod .Index 3 }}", "type": "mine", "kubernetes.io/os": "plan9"},
			Annotations: map[string]string{"note": "{{ .Pool }}/{{ .Name }}"},
		},
		Spec: v1alpha1.NodeTemplateSpec{
			Taints:     []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}},
			PodCIDR:    `{{ AddCIDR "10.0.0.0/24" .Index }}`,
			ProviderID: "sim://{{ .Name }}",
		},
		Status: v1alpha1.NodeTemplateStatus{Capacity: capacity, Allocatable: capacity, NodeInfo: corev1.NodeSystemInfo{Architecture: "arm64"}},
	}
	n, err := NewNodeBuilder("pool", tmpl)
	if err != nil {
		t.Fatal(err)
	}
	got, err := n.Render(4)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: "pool-4",
			Labels: map[string]string{
				"zone": "z-1", "kubernetes.io/os": "plan9", "kubernetes.io/arch": "arm64", "beta.kubernetes.io/os": "plan9", "beta.kubernetes.io/arch": "arm64", "kubernetes.io/hostname": "pool-4",
				// The marks win over the template.
				"type": "kwok", "sim.x-k8s.io/nodepool": "pool",
			},
			Annotations: map[string]string{
				"note": "pool/pool-4", "kwok.x-k8s.io/node": "fake",
				AnnotationTemplateLabels: "kubernetes.io/os,type,zone", AnnotationTemplateAnnotations: "note",
			},
		},
		Spec: corev1.NodeSpec{
			Taints:     []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}},
			PodCIDR:    "10.0.4.0/24",
			PodCIDRs:   []string{"10.0.4.0/24"},
			ProviderID: "sim://pool-4",
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity, NodeInfo: corev1.NodeSystemInfo{Architecture: "arm64"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Render(4) (-want +got):\n%s", d)
	}
	// A value valid for the first Node may fail for a later one.
	bad, err := NewNodeBuilder("pool", &v1alpha1.NodeTemplate{Spec: v1alpha1.NodeTemplateSpec{PodCIDR: `{{ AddCIDR "255.255.255.0/24" .Index }}`}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Render(1); err == nil {
		t.Error("Render of an overflowing AddCIDR succeeded")
	}
}

// TestRenderRefusesLargeNodes: a template that never went through
// validation (a record written by hand) still makes no Node larger than
// sim.MaxNodeBytes.
func TestRenderRefusesLargeNodes(t *testing.T) {
	annotations := map[string]string{}
	for i := range 20 {
		annotations[fmt.Sprintf("a%d", i)] = strings.Repeat("x", 4<<10)
	}
	tmpl := &v1alpha1.NodeTemplate{Metadata: v1alpha1.NodeTemplateMetadata{Annotations: annotations}}
	n, err := NewNodeBuilder("pool", tmpl)
	if err != nil {
		t.Fatal(err)
	}
	if node, err := n.Render(0); err == nil {
		t.Errorf("Render made a Node of %d bytes, want an error above %d", node.Size(), sim.MaxNodeBytes)
	}
	for i := range 6 {
		delete(annotations, fmt.Sprintf("a%d", i))
	}
	if n, err = NewNodeBuilder("pool", tmpl); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Render(0); err != nil {
		t.Errorf("a Node of 56 KiB: %v", err)
	}
}
