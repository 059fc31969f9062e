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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// renderedLabels and renderedAnnotations are the keys Render writes besides
// the template's own (which each Node lists in its template-key
// annotations): diff compares them, so the Node cache keeps them.
var (
	renderedLabels = []string{
		corev1.LabelHostname, corev1.LabelOSStable, corev1.LabelArchStable,
		labelOSBeta, labelArchBeta, LabelType, sim.LabelNodePool,
	}
	renderedAnnotations = []string{AnnotationKwokNode, AnnotationTemplateLabels, AnnotationTemplateAnnotations}
)

// compared is the transform of a simulator's Node cache: it keeps of a
// pool's Node what the reconciler reads (its identity, what diff compares,
// readiness) and drops the rest, so that the leader holds a few hundred
// bytes per Node whatever users add inside (a 200 KB annotation on each of
// 4,000 Nodes would otherwise be 800 MB). Keys that neither the template
// nor Render write are never compared (diff leaves others' keys alone), so
// dropping them hides no drift that the reconciler repairs. A key a changed
// template adds is compared against its absence, which at worst writes the
// value the Node already has, once, along with the new key list.
func compared(obj interface{}) (interface{}, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	kept := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:              n.Name,
			UID:               n.UID,
			ResourceVersion:   n.ResourceVersion,
			DeletionTimestamp: n.DeletionTimestamp,
			Labels:            pick(n.Labels, renderedLabels, SplitKeys(n.Annotations[AnnotationTemplateLabels])),
			Annotations:       pick(n.Annotations, renderedAnnotations, SplitKeys(n.Annotations[AnnotationTemplateAnnotations])),
		},
		Spec: corev1.NodeSpec{
			PodCIDR:       n.Spec.PodCIDR,
			ProviderID:    n.Spec.ProviderID,
			Taints:        n.Spec.Taints,
			Unschedulable: n.Spec.Unschedulable,
		},
		Status: corev1.NodeStatus{
			Capacity:    n.Status.Capacity,
			Allocatable: n.Status.Allocatable,
			NodeInfo:    n.Status.NodeInfo,
		},
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			// Only its status is read (ready): kwok's heartbeats and messages go.
			kept.Status.Conditions = []corev1.NodeCondition{{Type: c.Type, Status: c.Status}}
			break
		}
	}
	return kept, nil
}

// pick returns the entries of m under the keys of either list; nil if none.
func pick(m map[string]string, keys, more []string) map[string]string {
	var out map[string]string
	for _, list := range [][]string{keys, more} {
		for _, k := range list {
			if v, ok := m[k]; ok {
				if out == nil {
					out = make(map[string]string, len(keys)+len(more))
				}
				out[k] = v
			}
		}
	}
	return out
}
