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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// Labels find a simulator's host objects, but anyone who may create a Pod or
// a Secret in the namespace can forge them. The controller owner reference,
// whose UID only the simulator has, is what makes an object the simulator's:
// the server trusts nothing else, and the host's GC follows it.

// OwnerReference makes an object the simulator's.
func OwnerReference(s *v1alpha1.Simulator) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: v1alpha1.SchemeGroupVersion.String(),
		Kind:       "Simulator",
		Name:       s.Name,
		UID:        s.UID,
		Controller: ptr.To(true),
	}
}

// controller returns obj's controller reference if it is a Simulator.
func controller(obj metav1.Object) *metav1.OwnerReference {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.Kind != "Simulator" {
		return nil
	}
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || gv.Group != sim.GroupName {
		return nil
	}
	return ref
}

// OwnedBy says whether obj is controlled by the simulator of that UID.
func OwnedBy(obj metav1.Object, uid types.UID) bool {
	ref := controller(obj)
	return ref != nil && uid != "" && ref.UID == uid
}

// OwnedPod says whether pod is one the server made for the simulator of
// that name that owner is: its own (by owner reference here, by signature in
// a hosting cluster), and named as the server names the Pod of the
// generation it is labelled with. Pods are found by label, not by
// name, and the UID is readable by anyone who may view the simulator, so an
// owner reference alone can be forged by whoever may create Pods (the
// admission policy sim-apiserver-owner-references refuses that where it is
// installed); the name is what a forger must also take, and a Pod of that
// name is the one the server creates or finds in its way.
func OwnedPod(pod *corev1.Pod, simulator string, owner Owner) bool {
	return owner.Owns(pod) && pod.Name == sim.SimulatorPodName(simulator, PodGeneration(pod))
}

// OwnedByName says whether obj is controlled by a simulator of that name,
// whatever its UID: for the objects of a simulator that is gone.
func OwnedByName(obj metav1.Object, name string) bool {
	ref := controller(obj)
	return ref != nil && ref.Name == name
}

// Owner tells the host objects a simulator made from others that carry its
// label: by owner reference in the cluster that serves the API
// (ReferenceOwner), by the server's signature in a hosting cluster
// (SignedOwner).
type Owner interface {
	// Owns says whether obj is the simulator's.
	Owns(obj metav1.Object) bool
}

// ReferenceOwner is the simulator of that UID, which owns the objects it
// controls (OwnedBy).
type ReferenceOwner types.UID

// Owns says whether the simulator controls obj.
func (o ReferenceOwner) Owns(obj metav1.Object) bool { return OwnedBy(obj, types.UID(o)) }

// AnnotationNotOwned is set on a simulator by the reconciler while one of
// the simulator's host object names is taken by an object the simulator does
// not control. The reconciler then makes nothing (the Pod would mount a
// stranger's Secret) and the simulator is Failed, saying which object.
const AnnotationNotOwned = sim.AnnotationNotOwned
