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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// TestNetworkPolicy reads the policy as a CNI would: who may reach which
// port of the simulator's Pods.
func TestNetworkPolicy(t *testing.T) {
	s := simulator()
	p := NetworkPolicy(s, "sim-system", Local(s))
	if !OwnedBy(p, s.UID) || p.Name != sim.SimulatorNetworkPolicyName("example") || p.Namespace != "team-a" {
		t.Errorf("policy %s/%s owners %v, want sim-example in team-a controlled by the simulator", p.Namespace, p.Name, p.OwnerReferences)
	}
	want := map[string][]int32{
		"namespace sim-system": {3131, 1212}, // sim-apiserver: proxy, reconciler, simulators/api
		"own namespace":        {3131},       // ?mode=direct kubeconfigs; not the simulator server
	}
	if diff := cmp.Diff(want, admitted(t, p)); diff != "" {
		t.Errorf("admitted (-want +got):\n%s", diff)
	}
}

// TestHostedNetworkPolicy: in a hosting cluster no namespace is the
// server's; the simulator server, behind its hop gate, is open to every
// source (the hosting apiserver's proxy), and the rest stays as closed.
func TestHostedNetworkPolicy(t *testing.T) {
	s := simulator()
	p := NetworkPolicy(s, "sim-system", Placement{Namespace: "sims", Hosted: true})
	if p.Namespace != "sims" || len(p.OwnerReferences) != 0 || p.Labels[sim.LabelSimulator] != "example" {
		t.Errorf("policy %s/%s owners %v labels %v, want sim-example in sims, no owner, labelled", p.Namespace, p.Name, p.OwnerReferences, p.Labels)
	}
	want := map[string][]int32{
		"every source":  {1212}, // the hosting apiserver's proxy, to the hop gate
		"own namespace": {3131},
	}
	if diff := cmp.Diff(want, admitted(t, p)); diff != "" {
		t.Errorf("admitted (-want +got):\n%s", diff)
	}
}

// admitted is, for each peer of the policy, the ports it may reach.
func admitted(t *testing.T, p *networkingv1.NetworkPolicy) map[string][]int32 {
	t.Helper()
	if diff := cmp.Diff(map[string]string{sim.LabelSimulator: "example"}, p.Spec.PodSelector.MatchLabels); diff != "" {
		t.Errorf("pod selector (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]networkingv1.PolicyType{networkingv1.PolicyTypeIngress}, p.Spec.PolicyTypes); diff != "" {
		t.Errorf("policy types (-want +got):\n%s", diff)
	}
	got := map[string][]int32{}
	for _, rule := range p.Spec.Ingress {
		peers := []string{"every source"}
		if len(rule.From) > 0 {
			peers = nil
		}
		for _, from := range rule.From {
			switch {
			case from.IPBlock != nil:
				t.Fatalf("an IP block is admitted: %+v", from.IPBlock)
			case from.NamespaceSelector != nil && from.PodSelector == nil:
				peers = append(peers, "namespace "+from.NamespaceSelector.MatchLabels[corev1.LabelMetadataName])
			case from.NamespaceSelector == nil && from.PodSelector != nil && len(from.PodSelector.MatchLabels) == 0 && len(from.PodSelector.MatchExpressions) == 0:
				peers = append(peers, "own namespace")
			default:
				t.Fatalf("unexpected peer %+v", from)
			}
		}
		if len(rule.Ports) == 0 {
			t.Fatalf("a rule admits every port: %+v", rule)
		}
		for _, peer := range peers {
			for _, port := range rule.Ports {
				if port.Protocol == nil || *port.Protocol != corev1.ProtocolTCP || port.EndPort != nil {
					t.Fatalf("port %+v, want one TCP port", port)
				}
				got[peer] = append(got[peer], port.Port.IntVal)
			}
		}
	}
	return got
}
