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

package sim

import (
	"fmt"
	"strconv"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// Labels put on every host object derived from a simulator, and on every
// Node a nodepool makes inside one.
const (
	// LabelSimulator carries the simulator's name on its Pod, Service and Secret.
	LabelSimulator = "sim.x-k8s.io/simulator"
	// LabelGeneration carries the simulator generation a Pod was made from.
	LabelGeneration = "sim.x-k8s.io/generation"
	// LabelNodePool carries the pool's name on each of its Nodes.
	LabelNodePool = "sim.x-k8s.io/nodepool"
)

// FinalizerCleanup holds a simulator until the reconciler has removed its
// host objects (and its keys in an external etcd), and a nodepool until the
// reconciler has removed its Nodes from the simulator.
const FinalizerCleanup = "sim.x-k8s.io/cleanup"

// Annotations only the server writes on a simulator: the reconcilers
// record there what the status is computed from. A user's write of them is
// dropped (the strategy keeps the old values), so that nobody who may
// update a simulator can dress up its status for its other readers.
const (
	// AnnotationNotOwned says which host object of the simulator's names
	// another owner holds.
	AnnotationNotOwned = "sim.x-k8s.io/not-owned"
	// AnnotationObservedStatus is the digest of the status the reconciler
	// last saw, so that a change of it reaches watchers.
	AnnotationObservedStatus = "sim.x-k8s.io/observed-status"
	// AnnotationObservedPodVersion is the resourceVersion of the Pod
	// (AnnotationObservedStatus names it) that status was computed from: a
	// replica whose cache has an older one waits for it before it serves
	// the status.
	AnnotationObservedPodVersion = "sim.x-k8s.io/observed-pod-version"
	// AnnotationSourceStatus is the simulator's last report of its source
	// (contract.SourceStatus, JSON), which status.source shows.
	AnnotationSourceStatus = "sim.x-k8s.io/source-status"
	// AnnotationInnerStateReset says when and why the simulator's inner
	// cluster last started over (backing.InnerStateReset, JSON): its
	// InnerStatePreserved condition.
	AnnotationInnerStateReset = "sim.x-k8s.io/inner-state-reset"
)

// Annotations on a simulator's objects in a hosting cluster (spec.hosting),
// in place of an owner reference: a simulator of that UID does not exist
// there, and a hosting cluster that also serves this API would collect the
// objects as orphans.
const (
	// AnnotationOwner is "<serving namespace>/<simulator name>/<simulator UID>".
	AnnotationOwner = "sim.x-k8s.io/owner"
	// AnnotationOwnerSignature is the server's HMAC of the object and its
	// owner (backing.Signer), which only the server's replicas can make.
	AnnotationOwnerSignature = "sim.x-k8s.io/owner-signature"
)

// ServerAnnotations are the annotations only the server writes.
var ServerAnnotations = []string{AnnotationNotOwned, AnnotationObservedStatus, AnnotationObservedPodVersion, AnnotationSourceStatus, AnnotationInnerStateReset}

// ReservedPorts returns the Pod ports a spec may not use, and what uses them.
// The etcd ports are taken only when the Pod runs its own etcd.
func ReservedPorts(inPodEtcd bool) map[int32]string {
	p := map[int32]string{
		contract.SchedulerPort: "kube-scheduler",
		contract.KwokPort:      "kwok",
	}
	if inPodEtcd {
		p[contract.EtcdClientPort] = "etcd"
		p[contract.EtcdPeerPort] = "etcd"
	}
	return p
}

// The names of the host objects derived from a simulator. They live in the
// simulator's namespace; the prefix keeps them apart from the user's own objects.

// SimulatorServiceName is the Service in front of the simulator's Pod.
func SimulatorServiceName(simulator string) string { return "sim-" + simulator }

// SimulatorNetworkPolicyName is the NetworkPolicy that admits to the
// simulator's Pod only what must reach it.
func SimulatorNetworkPolicyName(simulator string) string { return "sim-" + simulator }

// SimulatorSecretName is the Secret with the simulator's credentials.
func SimulatorSecretName(simulator string) string { return "sim-" + simulator + "-credentials" }

// SimulatorProxyAccountName is the ServiceAccount (and Role) whose tokens
// may reach only this simulator's proxy.
func SimulatorProxyAccountName(simulator string) string { return "sim-" + simulator + "-proxy" }

// SimulatorProxyReaderAccountName is the ServiceAccount (and Role) whose
// tokens may only read through this simulator's proxy.
func SimulatorProxyReaderAccountName(simulator string) string {
	return "sim-" + simulator + "-proxy-reader"
}

// SimulatorPodName is the Pod made from one generation of the simulator's spec.
func SimulatorPodName(simulator string, generation int64) string {
	return fmt.Sprintf("sim-%s-g%d", simulator, generation)
}

// NodeName is the deterministic name of a nodepool's index-th Node.
func NodeName(pool string, index int) string { return pool + "-" + strconv.Itoa(index) }

// NodePoolSelector is the label selector of a nodepool's Nodes, as its
// status and scale subresource report it.
func NodePoolSelector(pool string) string { return LabelNodePool + "=" + pool }

// MaxNodeBytes bounds a pool Node as rendered from its template: validation
// refuses a template any of whose Nodes could exceed it, and the Node
// builder refuses to make one that does.
const MaxNodeBytes = 64 << 10
