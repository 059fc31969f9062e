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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// Service builds the Service in front of the simulator's Pod, where place
// says.
func Service(s *v1alpha1.Simulator, place Placement) *corev1.Service {
	meta := place.objectMeta(s, sim.SimulatorServiceName(s.Name))
	meta.Labels = Labels(s)
	var svcType corev1.ServiceType // ClusterIP, the default
	if place.NodePort {
		svcType = corev1.ServiceTypeNodePort
	}
	return &corev1.Service{
		ObjectMeta: meta,
		Spec: corev1.ServiceSpec{
			Type:     svcType,
			Selector: Labels(s),
			Ports: []corev1.ServicePort{
				{Name: "kube-apiserver", Port: s.Spec.KubeAPIServerPort, TargetPort: intstr.FromString("kube-apiserver")},
				{Name: "simulator", Port: s.Spec.SimulatorServerPort, TargetPort: intstr.FromString("simulator")},
			},
		},
	}
}
