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

package backing

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// EtcdData says where a Pod's inner objects are kept beyond the Pod: its
// etcd data claim, or the external etcd and prefix its simulator container
// is told of; "" when they go with the Pod. A Pod made in place of one with
// the same EtcdData keeps the inner state, and must wait until the other
// has ended: two etcds on one data directory, or two control planes on one
// prefix, would each undo the other.
func EtcdData(pod *corev1.Pod) string {
	if Container(&pod.Spec, contract.EtcdContainer) != nil {
		for _, v := range pod.Spec.Volumes {
			if v.Name == contract.EtcdDataVolume && v.PersistentVolumeClaim != nil {
				return "claim " + v.PersistentVolumeClaim.ClaimName
			}
		}
		return ""
	}
	c := Container(&pod.Spec, contract.SimulatorContainer)
	if c == nil {
		return ""
	}
	var url, prefix string
	for _, e := range c.Env {
		switch e.Name {
		case contract.EnvEtcdURL:
			url = e.Value
		case contract.EnvEtcdPrefix:
			prefix = e.Value
		}
	}
	if url == "" {
		return ""
	}
	return "etcd " + url + prefix
}

// InnerStateReset is when and why a simulator's inner cluster last started
// over, as the reconciler records it (sim.AnnotationInnerStateReset) when it
// makes a Pod that starts with an empty etcd in place of another.
type InnerStateReset struct {
	Time    metav1.Time `json:"time"`
	Reason  string      `json:"reason"`
	Message string      `json:"message"`
}

// String is the annotation's value.
func (r InnerStateReset) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// innerStateCondition is the InnerStatePreserved condition: False, with
// the recorded reset, once the inner cluster started over; True before.
func innerStateCondition(s *sim.Simulator, observedGeneration int64) metav1.Condition {
	c := metav1.Condition{
		Type:               sim.SimulatorConditionInnerStatePreserved,
		Status:             metav1.ConditionTrue,
		ObservedGeneration: observedGeneration,
		LastTransitionTime: s.CreationTimestamp,
		Reason:             "Preserved",
		Message:            "the inner cluster holds what was made in it since the simulator was created",
	}
	value, ok := s.Annotations[sim.AnnotationInnerStateReset]
	if !ok {
		return c
	}
	var reset InnerStateReset
	if err := json.Unmarshal([]byte(value), &reset); err != nil || reset.Reason == "" {
		return c
	}
	c.Status, c.LastTransitionTime, c.Reason, c.Message = metav1.ConditionFalse, reset.Time, reset.Reason, reset.Message
	return c
}
