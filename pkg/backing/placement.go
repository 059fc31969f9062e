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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// Placement is where a simulator's Pod, Service, credentials Secret and
// NetworkPolicy go: the cluster that serves the API (Local) or a hosting
// cluster (spec.hosting). The accounts of simulators/kubeconfig
// (ProxyAccess) always stay local: their tokens are presented here.
type Placement struct {
	// Namespace is where the objects are made.
	Namespace string
	// Hosted says the objects are in a hosting cluster, which has no
	// Simulator of that UID: they carry no owner reference (its GC would
	// delete them) and are the simulator's by signature (SignedOwner).
	Hosted bool
	// NodePort, hosted, makes the Service a NodePort one: the server
	// reaches the simulator at its Pod's node (spec.hosting.route).
	NodePort bool
}

// Local places the objects beside the simulator, as owner references
// allow.
func Local(s *v1alpha1.Simulator) Placement {
	return Placement{Namespace: s.Namespace}
}

// objectMeta is the metadata of a simulator's object of that name: in the
// placement's namespace, controlled by the simulator when local. Hosted
// objects keep the simulator's label; they are signed once created, as
// the signature covers the object's UID.
func (p Placement) objectMeta(s *v1alpha1.Simulator, name string) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{Name: name, Namespace: p.Namespace}
	if !p.Hosted {
		meta.OwnerReferences = []metav1.OwnerReference{OwnerReference(s)}
	}
	return meta
}
