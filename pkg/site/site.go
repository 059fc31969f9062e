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

// Package site says where a simulator's Pod, Service, credentials Secret
// and NetworkPolicy are: beside the simulator in the cluster that serves the
// API, or in the hosting cluster its spec.hosting names. A Site gives the
// client and the cache to reach them there, and the Owner that tells the
// simulator's own objects from look-alikes: one answer for the reconciler,
// the status served on read and the route to the inner cluster.
package site

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/hosting"
)

// Ref is what Of needs of a simulator.
type Ref struct {
	Namespace, Name string
	UID             types.UID
	// HostingSecretName and HostingNamespace are spec.hosting's; empty
	// when the simulator is not hosted.
	HostingSecretName, HostingNamespace string
	// NodePort is spec.hosting.route NodePort: the simulator's Service
	// there is a NodePort one, the route goes to it.
	NodePort bool
}

// Hosted says whether the simulator names a hosting cluster.
func (r Ref) Hosted() bool { return r.HostingSecretName != "" }

// Place is where spec.hosting puts the simulator's objects.
func (r Ref) Place() backing.Placement {
	if r.Hosted() {
		return backing.Placement{Namespace: r.HostingNamespace, Hosted: true, NodePort: r.NodePort}
	}
	return backing.Placement{Namespace: r.Namespace}
}

// Key is the simulator's key (namespace/name), as the hosting registry
// knows it.
func (r Ref) Key() string { return r.Namespace + "/" + r.Name }

// Site is where a simulator's objects are.
type Site struct {
	Place backing.Placement
	// Client and Cache reach the cluster the objects are in.
	Client kubernetes.Interface
	Cache  *hostcache.Cache
	// Owner tells the simulator's objects: by owner reference here, by
	// the server's signature in a hosting cluster.
	Owner backing.Owner
	// Signed, in a hosting cluster, signs each object once made there (the
	// signature covers its UID); nil here, where the owner reference the
	// object is made with claims it.
	Signed *backing.SignedOwner
	// Hosting is the hosting cluster's entry (its configuration and the
	// Version of its credentials, for the route to the simulator there);
	// nil here.
	Hosting *hosting.Entry
}

// Pods are the Pods labelled with the simulator in its site, the
// simulator's own among them (backing.PickPod and OwnedPod tell which).
func (s Site) Pods(name string) []*corev1.Pod {
	return s.Cache.SimulatorPods(s.Place.Namespace, name)
}

// Pod is the simulator's Pod in its site, the one its status speaks for
// and the proxy routes to (backing.PickPod), nil when it has none.
func (s Site) Pod(name string, generation int64) *corev1.Pod {
	return backing.PickPod(s.Pods(name), name, s.Owner, generation)
}

// PodsVersion is the resourceVersion the site's cache has seen every
// change of its simulators' Pods up to (hostcache.Cache.PodsVersion).
func (s Site) PodsVersion() string {
	return s.Cache.PodsVersion(s.Place.Namespace)
}

// ErrHostingDisabled is a hosted simulator on a server started without
// --enable-hosting (it was, when the simulator was made).
var ErrHostingDisabled = errors.New("this server does not host simulators in other clusters (--enable-hosting is off)")

// ErrNoOwnershipKey is a hosted simulator before the server has read the
// key it signs its objects there with.
var ErrNoOwnershipKey = errors.New("the server has not read its ownership key yet")

// Resolver finds simulators' sites.
type Resolver struct {
	// Client and Cache are the cluster's that serves the API.
	Client kubernetes.Interface
	Cache  *hostcache.Cache
	// Hosting holds the hosting clusters; nil when hosting is off.
	Hosting *hosting.Registry
	// Signer is the ownership key's signer, nil until it is read.
	Signer func() *backing.Signer
}

// Of is the site of the simulator r. A hosted simulator's needs its
// hosting cluster followed (Follower: a stored simulator acquires it), a
// kubeconfig that gave clients, a cluster that answers, and the ownership
// key: the error says which is missing (backing.Status shows it as
// HostingClusterUnreachable), and the Site still has the placement and,
// once there were clients, the last ones with their cache (Entry.Client:
// for cleanup, not to be trusted with deletions). Of only reads: it is on
// the path of every read of status.
func (res *Resolver) Of(r Ref) (Site, error) {
	if !r.Hosted() {
		return res.Local(r), nil
	}
	st := Site{Place: r.Place()}
	if res.Hosting == nil {
		return st, ErrHostingDisabled
	}
	signer := res.signer()
	if signer == nil {
		return st, ErrNoOwnershipKey
	}
	entry, ok := res.Hosting.Get(r.Namespace, r.HostingSecretName)
	if !ok {
		// Not followed yet (just made), or no more (deleted).
		return st, &hosting.SecretError{Key: hosting.Key{Namespace: r.Namespace, SecretName: r.HostingSecretName}, Err: hosting.ErrSecretNotRead}
	}
	owner := signer.Owner(backing.Claim{Namespace: r.Namespace, Name: r.Name, UID: r.UID})
	st.Owner, st.Signed = owner, &owner
	st.Client, st.Cache, st.Hosting = entry.Client(), entry.Cache(), entry
	if err := entry.Health(); err != nil {
		return st, err
	}
	if st.Client == nil || st.Cache == nil {
		// Health said nothing of it: clients are made with the first
		// good kubeconfig, and Health speaks until then.
		return st, fmt.Errorf("the hosting Secret %s/%s gave no clients yet", r.Namespace, r.HostingSecretName)
	}
	return st, nil
}

// Local is the site of r's objects in the cluster that serves the API:
// all of them for a simulator not hosted, the accounts of its kubeconfigs
// for one that is.
func (res *Resolver) Local(r Ref) Site {
	return Site{Place: backing.Placement{Namespace: r.Namespace}, Client: res.Client, Cache: res.Cache,
		Owner: backing.ReferenceOwner(r.UID)}
}

// signer is the ownership key's signer, nil until it is read.
func (res *Resolver) signer() *backing.Signer {
	if res.Signer == nil {
		return nil
	}
	return res.Signer()
}

// Claimed is the simulator (its key) that obj, an object of a hosting
// cluster, was signed for, if the server signed it.
func (res *Resolver) Claimed(obj metav1.Object) (string, bool) {
	signer := res.signer()
	if signer == nil {
		return "", false
	}
	claim, ok := signer.Claimed(obj)
	if !ok {
		return "", false
	}
	return claim.Namespace + "/" + claim.Name, true
}

// RefOf is the Ref of a simulator of the served version.
func RefOf(s *v1alpha1.Simulator) Ref {
	r := ref(s)
	if h := s.Spec.Hosting; h != nil {
		r.HostingSecretName, r.HostingNamespace = h.SecretName, h.Namespace
		r.NodePort = h.Route == v1alpha1.SimulatorHostingRouteNodePort
	}
	return r
}

// InternalRefOf is the Ref of a simulator of the internal version.
func InternalRefOf(s *sim.Simulator) Ref {
	r := ref(s)
	if h := s.Spec.Hosting; h != nil {
		r.HostingSecretName, r.HostingNamespace = h.SecretName, h.Namespace
		r.NodePort = h.Route == sim.SimulatorHostingRouteNodePort
	}
	return r
}

func ref(s metav1.Object) Ref {
	return Ref{Namespace: s.GetNamespace(), Name: s.GetName(), UID: s.GetUID()}
}
