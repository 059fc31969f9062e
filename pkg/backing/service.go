package backing

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// Service builds the Service in front of the simulator's Pod.
func Service(s *v1alpha1.Simulator) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:            sim.SimulatorServiceName(s.Name),
			Namespace:       s.Namespace,
			Labels:          Labels(s),
			OwnerReferences: []metav1.OwnerReference{OwnerReference(s)},
		},
		Spec: corev1.ServiceSpec{
			Selector: Labels(s),
			Ports: []corev1.ServicePort{
				{Name: "kube-apiserver", Port: s.Spec.KubeAPIServerPort, TargetPort: intstr.FromString("kube-apiserver")},
				{Name: "simulator", Port: s.Spec.SimulatorServerPort, TargetPort: intstr.FromString("simulator")},
			},
		},
	}
}
