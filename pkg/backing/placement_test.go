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
	"crypto/x509"
	"encoding/pem"
	"testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

var hosted = Placement{Namespace: "sims", Hosted: true}

type object interface {
	metav1.Object
	runtime.Object
}

// objects are the simulator's objects built for place, by kind.
func objects(t *testing.T, s *v1alpha1.Simulator, place Placement) map[string]object {
	t.Helper()
	pod, err := Pod(s, place)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := Secret(s, place)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]object{
		"Pod": pod, "Service": Service(s, place), "Secret": secret, "NetworkPolicy": NetworkPolicy(s, "sim-system", place),
	}
}

// TestPlacementMeta: local objects are in the simulator's namespace and
// controlled by it, as before placements; hosted ones are in the hosting
// namespace with no owner reference (the hosting cluster's GC would
// delete them) and keep the simulator's label.
func TestPlacementMeta(t *testing.T) {
	s := simulator()
	for kind, obj := range objects(t, s, Local(s)) {
		want := []metav1.OwnerReference{OwnerReference(s)}
		if obj.GetNamespace() != "team-a" || !cmp.Equal(want, obj.GetOwnerReferences()) || obj.GetLabels()[sim.LabelSimulator] != "example" {
			t.Errorf("local %s %s/%s owners %v labels %v, want in team-a, controlled by the simulator, labelled",
				kind, obj.GetNamespace(), obj.GetName(), obj.GetOwnerReferences(), obj.GetLabels())
		}
	}
	for kind, obj := range objects(t, s, hosted) {
		if obj.GetNamespace() != "sims" || obj.GetOwnerReferences() != nil || obj.GetLabels()[sim.LabelSimulator] != "example" {
			t.Errorf("hosted %s %s/%s owners %v labels %v, want in sims, no owner, labelled",
				kind, obj.GetNamespace(), obj.GetName(), obj.GetOwnerReferences(), obj.GetLabels())
		}
		if len(obj.GetAnnotations()[sim.AnnotationOwner]) != 0 {
			t.Errorf("hosted %s is built with a claim: it is signed once made", kind)
		}
	}
}

// TestHostedPodAndService: apart from where they go, hosted Pods and
// Services are the local ones: same Secrets mounted (by name, in the
// hosting namespace), same etcd prefix, same selector.
func TestHostedPodAndService(t *testing.T) {
	s := simulator()
	s.Spec.EtcdTLSSecretName = "etcd-client"
	s.Spec.Source = &v1alpha1.SimulatorSource{SecretName: "prod", Mode: v1alpha1.SourceModeSync}
	local, there := objects(t, s, Local(s)), objects(t, s, hosted)
	for _, kind := range []string{"Pod", "Service"} {
		moved := there[kind].DeepCopyObject().(object)
		moved.SetNamespace(s.Namespace)
		moved.SetOwnerReferences(local[kind].GetOwnerReferences())
		if diff := cmp.Diff(local[kind], moved); diff != "" {
			t.Errorf("hosted %s differs from the local one beyond namespace and owners (-local +hosted):\n%s", kind, diff)
		}
	}
}

func TestServingNames(t *testing.T) {
	local := []string{
		"sim-example.team-a.svc", "sim-example", "sim-example.team-a", "sim-example.team-a.svc.cluster.local",
		"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
	}
	s := simulator()
	if diff := cmp.Diff(local, ServingNames("example", "team-a", Local(s))); diff != "" {
		t.Errorf("local (-want +got):\n%s", diff)
	}
	// The Service's names over there, status.kubeAPIServerURL's among them.
	want := append(local, "sim-example.sims.svc", "sim-example.sims", "sim-example.sims.svc.cluster.local")
	if diff := cmp.Diff(want, ServingNames("example", "team-a", hosted)); diff != "" {
		t.Errorf("hosted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(local, ServingNames("example", "team-a", Placement{Namespace: "team-a", Hosted: true})); diff != "" {
		t.Errorf("hosted in a namespace of the same name: no name twice (-want +got):\n%s", diff)
	}
	secret, err := Secret(s, hosted)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(secret.Data[contract.FileServingCert])
	if block == nil {
		t.Fatal("no serving certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, cert.DNSNames); diff != "" {
		t.Errorf("the hosted serving certificate's names (-want +got):\n%s", diff)
	}
}

// TestHopToken: a hosted simulator's credentials hold a token of their
// own for the hop gate; a local one's none, so its gate refuses all.
func TestHopToken(t *testing.T) {
	s := simulator()
	local, err := Secret(s, Local(s))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := local.Data[contract.FileHopToken]; ok {
		t.Errorf("a local simulator's credentials hold %s", contract.FileHopToken)
	}
	tokens := map[string]bool{}
	for range 2 {
		secret, err := Secret(s, hosted)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range contract.CredentialFiles {
			if len(secret.Data[k]) == 0 {
				t.Errorf("credential %q is missing", k)
			}
		}
		token := string(secret.Data[contract.FileHopToken])
		// 256 bits of base32: 52 characters.
		if len(token) < 52 {
			t.Errorf("hop token %q, want at least 52 characters", token)
		}
		tokens[token] = true
	}
	if len(tokens) != 2 {
		t.Error("two hosted simulators have the same hop token")
	}
}
