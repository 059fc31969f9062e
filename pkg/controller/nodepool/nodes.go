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
	"encoding/json"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// change is what an existing Node needs to match its template.
type change struct {
	// recreate: an immutable field (podCIDR, providerID) differs.
	recreate bool
	// meta is a JSON merge patch of metadata and spec; nil when they match.
	meta []byte
	// status is a JSON merge patch of the status subresource; nil when it matches.
	status []byte
}

func (c change) none() bool { return !c.recreate && c.meta == nil && c.status == nil }

// diff compares a Node with what its template makes of it. Only what the
// template says is compared: fields others own (kwok's conditions and
// addresses, labels and annotations the template never set) stay as they are.
func diff(current, desired *corev1.Node) change {
	if current.Spec.PodCIDR != desired.Spec.PodCIDR || current.Spec.ProviderID != desired.Spec.ProviderID {
		return change{recreate: true}
	}
	var c change
	meta := map[string]interface{}{}
	if l := mapPatch(current.Labels, desired.Labels, SplitKeys(current.Annotations[AnnotationTemplateLabels])); l != nil {
		meta["labels"] = l
	}
	dropped := append(SplitKeys(current.Annotations[AnnotationTemplateAnnotations]),
		AnnotationTemplateLabels, AnnotationTemplateAnnotations)
	if a := mapPatch(current.Annotations, desired.Annotations, dropped); a != nil {
		meta["annotations"] = a
	}
	spec := map[string]interface{}{}
	if !sameTaints(current.Spec.Taints, desired.Spec.Taints) {
		spec["taints"] = desired.Spec.Taints
	}
	if current.Spec.Unschedulable != desired.Spec.Unschedulable {
		spec["unschedulable"] = desired.Spec.Unschedulable
	}
	patch := map[string]interface{}{}
	if len(meta) > 0 {
		patch["metadata"] = meta
	}
	if len(spec) > 0 {
		patch["spec"] = spec
	}
	if len(patch) > 0 {
		c.meta, _ = json.Marshal(patch)
	}

	status := map[string]interface{}{}
	if r := resourcesPatch(current.Status.Capacity, desired.Status.Capacity); r != nil {
		status["capacity"] = r
	}
	if r := resourcesPatch(current.Status.Allocatable, desired.Status.Allocatable); r != nil {
		status["allocatable"] = r
	}
	if info := nodeInfoPatch(current.Status.NodeInfo, desired.Status.NodeInfo); info != nil {
		status["nodeInfo"] = info
	}
	if len(status) > 0 {
		c.status, _ = json.Marshal(map[string]interface{}{"status": status})
	}
	return c
}

// mapPatch sets every desired key whose value differs and removes the keys
// in dropped that are no longer desired; nil when nothing changes.
func mapPatch(current, desired map[string]string, dropped []string) map[string]interface{} {
	p := map[string]interface{}{}
	for k, v := range desired {
		if cur, ok := current[k]; !ok || cur != v {
			p[k] = v
		}
	}
	for _, k := range dropped {
		if _, want := desired[k]; !want {
			if _, has := current[k]; has {
				p[k] = nil
			}
		}
	}
	if len(p) == 0 {
		return nil
	}
	return p
}

func sameTaints(a, b []corev1.Taint) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return equality.Semantic.DeepEqual(a, b)
}

// resourcesPatch replaces a resource list when it differs from the desired
// one (removed resources are set to null); nil when they match.
func resourcesPatch(current, desired corev1.ResourceList) map[string]interface{} {
	if len(desired) == 0 {
		return nil
	}
	same := len(current) == len(desired)
	for name, q := range desired {
		if cur, ok := current[name]; !ok || cur.Cmp(q) != 0 {
			same = false
		}
	}
	if same {
		return nil
	}
	p := map[string]interface{}{}
	for name := range current {
		p[string(name)] = nil
	}
	for _, name := range slices.Sorted(maps.Keys(desired)) {
		q := desired[name]
		p[string(name)] = q.String()
	}
	return p
}

// nodeInfoPatch sets the fields the template names; the others are kwok's.
func nodeInfoPatch(current, desired corev1.NodeSystemInfo) map[string]interface{} {
	p := map[string]interface{}{}
	for _, f := range []struct {
		name      string
		cur, want string
	}{
		{"machineID", current.MachineID, desired.MachineID},
		{"systemUUID", current.SystemUUID, desired.SystemUUID},
		{"bootID", current.BootID, desired.BootID},
		{"kernelVersion", current.KernelVersion, desired.KernelVersion},
		{"osImage", current.OSImage, desired.OSImage},
		{"containerRuntimeVersion", current.ContainerRuntimeVersion, desired.ContainerRuntimeVersion},
		{"kubeletVersion", current.KubeletVersion, desired.KubeletVersion},
		//lint:ignore SA1019 a template may still set it, as a kubelet older than 1.31 reported it
		{"kubeProxyVersion", current.KubeProxyVersion, desired.KubeProxyVersion},
		{"operatingSystem", current.OperatingSystem, desired.OperatingSystem},
		{"architecture", current.Architecture, desired.Architecture},
	} {
		if f.want != "" && f.cur != f.want {
			p[f.name] = f.want
		}
	}
	if len(p) == 0 {
		return nil
	}
	return p
}

// ready says whether the Node is Ready.
func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
