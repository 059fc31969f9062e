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
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

func testSigner(t *testing.T, fill byte) *Signer {
	t.Helper()
	s, err := NewSigner(bytes.Repeat([]byte{fill}, MinOwnershipKeyBytes))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var claim = Claim{Namespace: "team-a", Name: "example", UID: "sim-uid"}

// hostedPod is the simulator's Pod as the hosting cluster made it.
func hostedPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "sims", Name: "sim-example-g1", UID: "pod-uid",
		Labels: map[string]string{"app": "x"}, Annotations: map[string]string{"note": "kept"}}}
}

// TestSignedOwner: a hosted object the server signed is the simulator's;
// the signature's annotations on any other object, or on this one with its
// kind, namespace, name or claim changed, or under another key, are not.
func TestSignedOwner(t *testing.T) {
	signer := testSigner(t, 1)
	owner := signer.Owner(claim)
	signed := hostedPod()
	if err := owner.Sign(signed); err != nil {
		t.Fatal(err)
	}
	if signed.Labels[sim.LabelSimulator] != "example" || signed.Labels["app"] != "x" || signed.Annotations["note"] != "kept" ||
		signed.Annotations[sim.AnnotationOwner] != "team-a/example/sim-uid" || len(signed.Annotations[sim.AnnotationOwnerSignature]) != 64 {
		t.Fatalf("signed labels %v, annotations %v: want the simulator label, the claim and a hex SHA-256 beside the object's own", signed.Labels, signed.Annotations)
	}
	if !owner.Owns(signed) {
		t.Error("a correctly signed Pod is not owned")
	}
	if got, ok := signer.Claimed(signed); !ok || got != claim {
		t.Errorf("Claimed = %v, %v; want %v", got, ok, claim)
	}
	// As a metadata-only cache holds it: the kind from its TypeMeta.
	partial := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: signed.ObjectMeta}
	if !owner.Owns(partial) {
		t.Error("the signed Pod's metadata is not owned")
	}

	copyOnto := func(obj metav1.Object) metav1.Object {
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[sim.AnnotationOwner], a[sim.AnnotationOwnerSignature] = signed.Annotations[sim.AnnotationOwner], signed.Annotations[sim.AnnotationOwnerSignature]
		obj.SetAnnotations(a)
		return obj
	}
	for _, tc := range []struct {
		name  string
		obj   metav1.Object
		owner Owner
	}{
		{"copied onto a Pod of another UID (planted, or made after ours went)", func() metav1.Object {
			p := hostedPod()
			p.UID = "planted-uid"
			return copyOnto(p)
		}(), owner},
		{"under another key", signed, testSigner(t, 2).Owner(claim)},
		{"another kind of the same name and UID", func() metav1.Object {
			s := &corev1.Service{ObjectMeta: *hostedPod().ObjectMeta.DeepCopy()}
			return copyOnto(s)
		}(), owner},
		{"another kind, by TypeMeta", &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: signed.ObjectMeta}, owner},
		{"renamed", func() metav1.Object {
			p := signed.DeepCopy()
			p.Name = "sim-example-g2"
			return p
		}(), owner},
		{"in another namespace", func() metav1.Object {
			p := signed.DeepCopy()
			p.Namespace = "other"
			return p
		}(), owner},
		{"claimed for another simulator name", func() metav1.Object {
			p := signed.DeepCopy()
			p.Annotations[sim.AnnotationOwner] = "team-a/other/sim-uid"
			return p
		}(), signer.Owner(Claim{Namespace: "team-a", Name: "other", UID: "sim-uid"})},
		{"claimed for another serving namespace", func() metav1.Object {
			p := signed.DeepCopy()
			p.Annotations[sim.AnnotationOwner] = "team-b/example/sim-uid"
			return p
		}(), signer.Owner(Claim{Namespace: "team-b", Name: "example", UID: "sim-uid"})},
		{"a simulator of the same name and another UID", signed, signer.Owner(Claim{Namespace: "team-a", Name: "example", UID: "new-uid"})},
		{"signature not hex", func() metav1.Object {
			p := signed.DeepCopy()
			p.Annotations[sim.AnnotationOwnerSignature] = "not hex"
			return p
		}(), owner},
		{"no signature", func() metav1.Object {
			p := signed.DeepCopy()
			delete(p.Annotations, sim.AnnotationOwnerSignature)
			return p
		}(), owner},
		{"an unsigned Pod", hostedPod(), owner},
		{"an owner reference alone", func() metav1.Object {
			p := hostedPod()
			s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "example", UID: "sim-uid"}}
			p.OwnerReferences = []metav1.OwnerReference{OwnerReference(s)}
			return p
		}(), owner},
	} {
		if tc.owner.Owns(tc.obj) {
			t.Errorf("%s: owned", tc.name)
		}
	}
	if c, ok := signer.Claimed(copyOnto(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "sims", Name: "sim-example-g1", UID: "x"}})); ok {
		t.Errorf("Claimed a planted Secret for %v", c)
	}
}

// TestSignRefuses: nothing is signed that the signature could not bind
// (an object not yet created, of no known kind, or a claim with parts
// missing), and a short key is refused.
func TestSignRefuses(t *testing.T) {
	signer := testSigner(t, 1)
	notCreated := hostedPod()
	notCreated.UID = ""
	if err := signer.Owner(claim).Sign(notCreated); err == nil || !strings.Contains(err.Error(), "no UID yet") {
		t.Errorf("sign before create: %v, want no UID yet", err)
	}
	unknown := &unstructured.Unstructured{}
	unknown.SetUID("u")
	if err := signer.Owner(claim).Sign(unknown); err == nil || !strings.Contains(err.Error(), "no kind") {
		t.Errorf("sign an object without a kind: %v, want no kind", err)
	}
	if err := signer.Owner(Claim{Namespace: "team-a", Name: "example"}).Sign(hostedPod()); err == nil {
		t.Error("signed for a simulator without a UID")
	}
	if signer.Owner(Claim{Namespace: "team-a", Name: "example"}).Owns(hostedPod()) {
		t.Error("a claim without a UID owns an unsigned Pod")
	}
	if _, err := NewSigner(make([]byte, MinOwnershipKeyBytes-1)); err == nil {
		t.Error("a short key was taken")
	}
}

// TestReferenceOwner: here the owner reference makes an object the
// simulator's, as OwnedBy says.
func TestReferenceOwner(t *testing.T) {
	s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "example", UID: "sim-uid"}}
	p := hostedPod()
	p.OwnerReferences = []metav1.OwnerReference{OwnerReference(s)}
	if !ReferenceOwner("sim-uid").Owns(p) || ReferenceOwner("other-uid").Owns(p) || ReferenceOwner("sim-uid").Owns(hostedPod()) {
		t.Error("ReferenceOwner does not follow the controller reference")
	}
}
