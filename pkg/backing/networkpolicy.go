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
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// NetworkPolicy admits to the simulator's Pods only what must reach them
// (where the cluster's CNI enforces NetworkPolicies):
//
//   - sim-apiserver (the Pods of serverNamespace, the server's own, where
//     nothing else runs): the inner kube-apiserver, for the proxy, the
//     nodepool reconciler and ?mode=direct's issuer, and the simulator
//     server, for the api subresource;
//   - the Pods of the simulator's own namespace: the inner kube-apiserver
//     alone, which is what a ?mode=direct kubeconfig points at (it still
//     needs a certificate of the simulator CA). The simulator server is not
//     among them: users reach it through the host (simulators/api).
//
// The kubelet's probes come from the node, which NetworkPolicies always
// admit. Everything else (the scheduler's and kwok's ports, etcd) is closed.
// Egress is left alone: an external etcdURL must stay reachable. A user who
// wants ?mode=direct from elsewhere adds a policy of their own: policies add up.
//
// Hosted (place.Hosted), no namespace there is the server's: a namespace
// named serverNamespace in the hosting cluster is anyone's. The server
// reaches the simulator server through the hosting apiserver's proxy,
// which comes from wherever the control plane runs, so that port is open
// to all and the hop gate (its token) is what admits; the inner
// kube-apiserver stays closed but to the Pods of its namespace. Reached
// at a NodePort (place.NodePort), both ports are open to all: the
// server's connections come from a node, and the simulator's admin
// certificate is what admits.
func NetworkPolicy(s *v1alpha1.Simulator, serverNamespace string, place Placement) *networkingv1.NetworkPolicy {
	port := func(p int32) networkingv1.NetworkPolicyPort {
		return networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(p))}
	}
	server := networkingv1.NetworkPolicyIngressRule{
		From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{corev1.LabelMetadataName: serverNamespace},
		}}},
		Ports: []networkingv1.NetworkPolicyPort{port(s.Spec.KubeAPIServerPort), port(s.Spec.SimulatorServerPort)},
	}
	switch {
	case place.NodePort:
		// No From: every source.
		server = networkingv1.NetworkPolicyIngressRule{Ports: server.Ports}
	case place.Hosted:
		server = networkingv1.NetworkPolicyIngressRule{Ports: []networkingv1.NetworkPolicyPort{port(s.Spec.SimulatorServerPort)}}
	}
	meta := place.objectMeta(s, sim.SimulatorNetworkPolicyName(s.Name))
	meta.Labels = Labels(s)
	return &networkingv1.NetworkPolicy{
		ObjectMeta: meta,
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: Labels(s)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{server, {
				From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}},
				Ports: []networkingv1.NetworkPolicyPort{port(s.Spec.KubeAPIServerPort)},
			}},
		},
	}
}
