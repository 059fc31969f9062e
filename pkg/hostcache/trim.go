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

package hostcache

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// trim is the transform of a kind's informers: the cache keeps what is
// read, and nothing a tenant could grow it with.
//   - managedFields go from every object: nothing reads them.
//   - An object no simulator controls (Options.Controlled) is only ever
//     told apart from the simulator's (backing.OwnedBy is false for it,
//     whatever else it holds): it is kept as a stub, its identity,
//     simulator label, controller reference and claim (claimAnnotations).
//     So a tenant's labelled Secret of 700 KB takes a few hundred bytes.
//   - Of a metadata-only kind, the same stub: only who controls it is read.
//   - A Secret a simulator controls keeps the credentials' keys alone,
//     the optional ones included (a hosted simulator's hop token).
//
// The objects a simulator controls otherwise stay whole: the reconciler
// updates them from the cache's copy, which must not drop what it does not
// mean to change.
func trim(k int, controlled func(metav1.Object) bool) cache.TransformFunc {
	metadataOnly := kinds[k].metadataOnly
	return func(obj interface{}) (interface{}, error) {
		m, ok := obj.(metav1.Object)
		if !ok {
			return obj, nil
		}
		if metadataOnly || !controlled(m) {
			return stub(obj, m), nil
		}
		m.SetManagedFields(nil)
		if s, ok := obj.(*corev1.Secret); ok {
			s.Data = credentialsOnly(s.Data)
			s.StringData = nil
		}
		return obj, nil
	}
}

// claimAnnotations say whose an object of a hosting cluster is, where no
// owner reference can (pkg/backing signs them): a stub keeps them, so that
// an object whose claim does not verify is still told apart by it.
var claimAnnotations = []string{sim.AnnotationOwner, sim.AnnotationOwnerSignature}

// maxClaim bounds a claim annotation a stub keeps: a real one is a
// namespace, a name and a UID, or a signature; a longer one, which would
// let a tenant grow the cache, is no claim.
const maxClaim = 512

// controlled says whether a Simulator is obj's controller: Options'
// default Controlled.
func controlled(obj metav1.Object) bool {
	ref := metav1.GetControllerOfNoCopy(obj)
	return ref != nil && backing.OwnedByName(obj, ref.Name)
}

func credentialsOnly(data map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(contract.CredentialFiles))
	for _, files := range [][]string{contract.CredentialFiles, contract.OptionalCredentialFiles} {
		for _, k := range files {
			if v, ok := data[k]; ok {
				out[k] = v
			}
		}
	}
	return out
}

// stub returns an object of obj's type with only the metadata that tells
// whose it is.
func stub(obj interface{}, m metav1.Object) interface{} {
	meta := metav1.ObjectMeta{
		Name:              m.GetName(),
		Namespace:         m.GetNamespace(),
		UID:               m.GetUID(),
		ResourceVersion:   m.GetResourceVersion(),
		DeletionTimestamp: m.GetDeletionTimestamp(),
	}
	if v, ok := m.GetLabels()[sim.LabelSimulator]; ok {
		meta.Labels = map[string]string{sim.LabelSimulator: v}
	}
	for _, a := range claimAnnotations {
		if v, ok := m.GetAnnotations()[a]; ok && len(v) <= maxClaim {
			if meta.Annotations == nil {
				meta.Annotations = map[string]string{}
			}
			meta.Annotations[a] = v
		}
	}
	if ref := metav1.GetControllerOfNoCopy(m); ref != nil {
		meta.OwnerReferences = []metav1.OwnerReference{*ref}
	}
	switch o := obj.(type) {
	case *metav1.PartialObjectMetadata:
		return &metav1.PartialObjectMetadata{TypeMeta: o.TypeMeta, ObjectMeta: meta}
	case *corev1.Pod:
		return &corev1.Pod{TypeMeta: o.TypeMeta, ObjectMeta: meta}
	case *corev1.Service:
		return &corev1.Service{TypeMeta: o.TypeMeta, ObjectMeta: meta}
	case *corev1.Secret:
		return &corev1.Secret{TypeMeta: o.TypeMeta, ObjectMeta: meta}
	case *networkingv1.NetworkPolicy:
		return &networkingv1.NetworkPolicy{TypeMeta: o.TypeMeta, ObjectMeta: meta}
	case *rbacv1.Role:
		return &rbacv1.Role{TypeMeta: o.TypeMeta, ObjectMeta: meta}
	}
	// A kind added to the cache without a stub here: at least no managedFields.
	m.SetManagedFields(nil)
	return obj
}
