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
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// A simulator's objects in a hosting cluster carry no owner reference (see
// sim.AnnotationOwner): the server claims them with annotations instead,
// and signs each claim with a key only its replicas hold. The signature
// covers the object's UID, so the annotations copied onto another object,
// or onto a look-alike made after the server's was deleted, never verify;
// and its kind, namespace and name, so that neither can be changed under it.

// MinOwnershipKeyBytes is the shortest key a Signer takes: SHA-256's size.
const MinOwnershipKeyBytes = sha256.Size

// Signer signs and verifies the claims of hosted objects.
type Signer struct {
	key []byte
}

// NewSigner returns the Signer of key, the replicas' shared secret.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < MinOwnershipKeyBytes {
		return nil, fmt.Errorf("the ownership key has %d bytes, fewer than %d", len(key), MinOwnershipKeyBytes)
	}
	return &Signer{key: bytes.Clone(key)}, nil
}

// Claim is the simulator a hosted object belongs to.
type Claim struct {
	// Namespace is the simulator's namespace in the cluster that serves the API.
	Namespace string
	Name      string
	UID       types.UID
}

// String is the claim as sim.AnnotationOwner holds it.
func (c Claim) String() string { return c.Namespace + "/" + c.Name + "/" + string(c.UID) }

func parseClaim(s string) (Claim, bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return Claim{}, false
	}
	return Claim{Namespace: parts[0], Name: parts[1], UID: types.UID(parts[2])}, true
}

// Owner is the simulator of claim, as its hosted objects know it.
func (s *Signer) Owner(claim Claim) SignedOwner { return SignedOwner{signer: s, claim: claim} }

// Claimed is the claim obj carries, if the server signed it for obj: whose
// it is, also once that simulator is gone (as OwnedByName).
func (s *Signer) Claimed(obj metav1.Object) (Claim, bool) {
	annotations := obj.GetAnnotations()
	claim, ok := parseClaim(annotations[sim.AnnotationOwner])
	if !ok {
		return Claim{}, false
	}
	got, err := hex.DecodeString(annotations[sim.AnnotationOwnerSignature])
	if err != nil {
		return Claim{}, false
	}
	want, err := s.mac(obj, claim)
	if err != nil || !hmac.Equal(got, want) {
		return Claim{}, false
	}
	return claim, true
}

// mac is HMAC-SHA256(key, kind|namespace|name|UID|claim). None of these
// can hold "|" (kinds, DNS names, UIDs), so no two messages run together.
// The claim is whole, not the simulator's UID alone, so that its serving
// namespace and name are not to be changed either.
func (s *Signer) mac(obj metav1.Object, claim Claim) ([]byte, error) {
	kind := kindOf(obj)
	if kind == "" {
		return nil, fmt.Errorf("%T has no kind to sign", obj)
	}
	if obj.GetUID() == "" {
		return nil, fmt.Errorf("%s %s/%s has no UID yet: sign it once created", kind, obj.GetNamespace(), obj.GetName())
	}
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(strings.Join([]string{kind, obj.GetNamespace(), obj.GetName(), string(obj.GetUID()), claim.String()}, "|")))
	return h.Sum(nil), nil
}

// kindOf is obj's kind: by its Go type for the typed objects, which the
// clients decode without one, else as it says (metadata-only and
// unstructured objects).
func kindOf(obj metav1.Object) string {
	switch obj.(type) {
	case *corev1.Pod:
		return "Pod"
	case *corev1.Service:
		return "Service"
	case *corev1.Secret:
		return "Secret"
	case *networkingv1.NetworkPolicy:
		return "NetworkPolicy"
	case *metav1.PartialObjectMetadata, runtime.Unstructured:
		return obj.(runtime.Object).GetObjectKind().GroupVersionKind().Kind
	}
	return ""
}

// SignedOwner is a simulator whose objects are in a hosting cluster.
type SignedOwner struct {
	signer *Signer
	claim  Claim
}

var _ Owner = SignedOwner{}

// Sign claims obj for the simulator: its simulator label, its claim and
// the claim's signature. obj must exist (the signature covers its UID): the
// caller patches the result in after the create.
func (o SignedOwner) Sign(obj metav1.Object) error {
	if o.claim.Namespace == "" || o.claim.Name == "" || o.claim.UID == "" {
		return errors.New("signing for a simulator without a namespace, name or UID")
	}
	mac, err := o.signer.mac(obj, o.claim)
	if err != nil {
		return err
	}
	// Copies: obj may share its maps with a cache.
	labels := maps.Clone(obj.GetLabels())
	if labels == nil {
		labels = map[string]string{}
	}
	labels[sim.LabelSimulator] = o.claim.Name
	obj.SetLabels(labels)
	annotations := maps.Clone(obj.GetAnnotations())
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[sim.AnnotationOwner] = o.claim.String()
	annotations[sim.AnnotationOwnerSignature] = hex.EncodeToString(mac)
	obj.SetAnnotations(annotations)
	return nil
}

// Owns says whether obj carries the server's signed claim for this
// simulator (of its UID: not another of the same name).
func (o SignedOwner) Owns(obj metav1.Object) bool {
	claim, ok := o.signer.Claimed(obj)
	return ok && o.claim.UID != "" && claim == o.claim
}
