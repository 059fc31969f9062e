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
)

// fakeVersion stands for the versions a Node's template leaves empty, as
// kwok's own "kwok-<version>" does for Nodes it makes Ready.
const fakeVersion = "kwok"

// readyConditions are those a healthy kubelet posts (kwok's NodeConditions).
var readyConditions = []corev1.NodeCondition{
	{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
	{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
	{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
	{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, Reason: "RouteCreated", Message: "RouteController created a route"},
}

// bornReady gives a Node about to be created the status kwok's
// simulator-node-ready stage would write, so that it is Ready when created:
// the apiserver keeps a Node's status on create, and kwok leaves a Ready
// Node as it is. Every Node of a pool is then one write, not a create and a
// status patch. The template's own values are kept.
func bornReady(n *corev1.Node, now metav1.Time) {
	n.Status.Phase = corev1.NodeRunning
	n.Status.Conditions = make([]corev1.NodeCondition, len(readyConditions))
	for i, c := range readyConditions {
		c.LastHeartbeatTime, c.LastTransitionTime = now, now
		n.Status.Conditions[i] = c
	}
	info := &n.Status.NodeInfo
	// Not kubeProxyVersion: kube deprecated it, and kubelets no longer report it.
	for _, f := range []*string{&info.KubeletVersion, &info.ContainerRuntimeVersion, &info.KernelVersion} {
		if *f == "" {
			*f = fakeVersion
		}
	}
	if info.Architecture == "" {
		info.Architecture = n.Labels[corev1.LabelArchStable]
	}
	if info.OperatingSystem == "" {
		info.OperatingSystem = n.Labels[corev1.LabelOSStable]
	}
	if len(n.Status.Allocatable) == 0 {
		n.Status.Allocatable = n.Status.Capacity.DeepCopy()
	}
}
