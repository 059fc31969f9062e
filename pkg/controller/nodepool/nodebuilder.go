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
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/simulator-apiserver/pkg/nodetemplate"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// The marks of every generated Node: kwok manages Nodes with the annotation
// (the kwok convention), and the label tells them apart from real ones.
const (
	AnnotationKwokNode = "kwok.x-k8s.io/node"

	labelOSBeta   = "beta.kubernetes.io/os"
	labelArchBeta = "beta.kubernetes.io/arch"
	LabelType     = "type"
)

// The keys of the template's labels and annotations, recorded on each Node
// so that a key the template drops is removed from existing Nodes while keys
// that others set are left alone.
const (
	AnnotationTemplateLabels      = "sim.x-k8s.io/template-labels"
	AnnotationTemplateAnnotations = "sim.x-k8s.io/template-annotations"
)

// NodeBuilder is a compiled pool template: its strings are parsed once and
// rendered for each index. It is safe for concurrent use.
type NodeBuilder struct {
	pool        string
	t           *v1alpha1.NodeTemplate
	labels      map[string]*nodetemplate.Template
	annotations map[string]*nodetemplate.Template
	podCIDR     *nodetemplate.Template
	providerID  *nodetemplate.Template
}

func compileMap(m map[string]string, what string) (map[string]*nodetemplate.Template, error) {
	out := make(map[string]*nodetemplate.Template, len(m))
	for k, v := range m {
		t, err := nodetemplate.Parse(v)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", what, k, err)
		}
		out[k] = t
	}
	return out, nil
}

// Compile parses the template of pool. The template should have been
// defaulted (capacity, allocatable) and validated.
func NewNodeBuilder(pool string, t *v1alpha1.NodeTemplate) (*NodeBuilder, error) {
	n := &NodeBuilder{pool: pool, t: t.DeepCopy()}
	var err error
	if n.labels, err = compileMap(t.Metadata.Labels, "label"); err != nil {
		return nil, err
	}
	if n.annotations, err = compileMap(t.Metadata.Annotations, "annotation"); err != nil {
		return nil, err
	}
	if n.podCIDR, err = nodetemplate.Parse(t.Spec.PodCIDR); err != nil {
		return nil, fmt.Errorf("podCIDR: %w", err)
	}
	if n.providerID, err = nodetemplate.Parse(t.Spec.ProviderID); err != nil {
		return nil, fmt.Errorf("providerID: %w", err)
	}
	return n, nil
}

// Render returns the index-th Node of the pool.
func (n *NodeBuilder) Render(index int) (*corev1.Node, error) {
	name := sim.NodeName(n.pool, index)
	v := nodetemplate.Values{Index: index, Name: name, Pool: n.pool}
	info := n.t.Status.NodeInfo
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			// What a kubelet would set; the template may say otherwise.
			Labels: map[string]string{
				corev1.LabelHostname:   name,
				corev1.LabelOSStable:   or(info.OperatingSystem, "linux"),
				corev1.LabelArchStable: or(info.Architecture, "amd64"),
			},
			Annotations: map[string]string{},
		},
		Spec: corev1.NodeSpec{
			Taints:        slices.Clone(n.t.Spec.Taints),
			Unschedulable: n.t.Spec.Unschedulable,
		},
		Status: corev1.NodeStatus{
			Capacity:    n.t.Status.Capacity.DeepCopy(),
			Allocatable: n.t.Status.Allocatable.DeepCopy(),
			NodeInfo:    info,
		},
	}
	if err := renderInto(node.Labels, n.labels, v, "label"); err != nil {
		return nil, err
	}
	if err := renderInto(node.Annotations, n.annotations, v, "annotation"); err != nil {
		return nil, err
	}
	if len(n.labels) > 0 {
		node.Annotations[AnnotationTemplateLabels] = joinKeys(n.labels)
	}
	if len(n.annotations) > 0 {
		node.Annotations[AnnotationTemplateAnnotations] = joinKeys(n.annotations)
	}
	// A kubelet sets the deprecated beta labels too, and the node lifecycle
	// controller would otherwise write every Node once more to add them.
	node.Labels[labelOSBeta] = node.Labels[corev1.LabelOSStable]
	node.Labels[labelArchBeta] = node.Labels[corev1.LabelArchStable]
	// The marks win over the template: without them the Node is not the pool's.
	node.Labels[LabelType] = "kwok"
	node.Labels[sim.LabelNodePool] = n.pool
	node.Annotations[AnnotationKwokNode] = "fake"
	var err error
	if node.Spec.PodCIDR, err = n.podCIDR.Render(v); err != nil {
		return nil, fmt.Errorf("podCIDR: %w", err)
	}
	if node.Spec.PodCIDR != "" {
		node.Spec.PodCIDRs = []string{node.Spec.PodCIDR}
	}
	if node.Spec.ProviderID, err = n.providerID.Render(v); err != nil {
		return nil, fmt.Errorf("providerID: %w", err)
	}
	// Validation bounds every Node of a valid template below this; a
	// template that was never validated is stopped here.
	if size := node.Size(); size > sim.MaxNodeBytes {
		return nil, fmt.Errorf("node %s would take %d bytes, more than %d", name, size, sim.MaxNodeBytes)
	}
	return node, nil
}

func renderInto(dst map[string]string, fields map[string]*nodetemplate.Template, v nodetemplate.Values, what string) error {
	for k, f := range fields {
		s, err := f.Render(v)
		if err != nil {
			return fmt.Errorf("%s %q: %w", what, k, err)
		}
		dst[k] = s
	}
	return nil
}

func joinKeys(m map[string]*nodetemplate.Template) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ",")
}

// SplitKeys reads a key list recorded by Render.
func SplitKeys(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
