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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Simulator is a scheduler simulator (kube-apiserver + kube-scheduler + kwok)
// running in a Pod of the host cluster.
type Simulator struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   SimulatorSpec
	Status SimulatorStatus
}

// SimulatorSpec follows KEP-159. All fields but Hosting may be updated; an
// update replaces the Pod.
type SimulatorSpec struct {
	// KubeAPIServerPort is the port of the simulator's inner kube-apiserver (env KUBE_API_PORT).
	KubeAPIServerPort int32
	// SimulatorServerPort is the port of the simulator's own server (env PORT).
	SimulatorServerPort int32
	// KubeSchedulerConfigurationPath is a KubeSchedulerConfiguration file inside the
	// simulator container (env KUBE_SCHEDULER_CONFIG_PATH).
	KubeSchedulerConfigurationPath string
	// EtcdURL is an external etcd (env KUBE_SCHEDULER_SIMULATOR_ETCD_URL); empty means
	// an etcd container in the Pod.
	EtcdURL string
	// EtcdTLSSecretName is a Secret (tls.crt, tls.key, ca.crt) of the simulator's
	// namespace with the client certificate for an https EtcdURL.
	EtcdTLSSecretName string
	// EtcdPersistentVolumeClaimName is a PersistentVolumeClaim of the
	// simulator's namespace for the etcd container's data; empty means a
	// volume that goes with the Pod. Not with EtcdURL.
	EtcdPersistentVolumeClaimName string
	// CORSAllowedOriginList is applied to the inner kube-apiserver and the simulator server
	// (env CORS_ALLOWED_ORIGIN_LIST).
	CORSAllowedOriginList []string
	// Image is the simulator image.
	Image string
	// PodTemplate is merged into the generated Pod; its "simulator" and "etcd" containers
	// take precedence over the generated ones.
	PodTemplate *corev1.PodTemplateSpec
	// Source is a cluster the simulator mirrors; nil means none.
	Source *SimulatorSource
	// Hosting is another cluster that runs the simulator's Pod; nil means
	// the cluster that serves the API. Immutable.
	Hosting *SimulatorHosting
}

// SimulatorHosting is a cluster other than the serving one that runs a
// simulator's Pod, Service, credentials Secret and NetworkPolicy.
type SimulatorHosting struct {
	// SecretName is a Secret of the simulator's namespace with a kubeconfig
	// (key "kubeconfig") of the hosting cluster.
	SecretName string
	// Namespace is the hosting cluster's namespace of those objects.
	Namespace string
	// Route is how the server reaches the simulator there.
	Route SimulatorHostingRoute
}

// SimulatorHostingRoute is how the server reaches a hosted simulator.
type SimulatorHostingRoute string

// Routes to a hosted simulator.
const (
	// SimulatorHostingRoutePodsProxy goes through the hosting cluster's
	// pods/proxy and the simulator server's hop gate.
	SimulatorHostingRoutePodsProxy SimulatorHostingRoute = "PodsProxy"
	// SimulatorHostingRouteNodePort goes to a NodePort of the simulator's
	// Service, at its Pod's node, with the simulator's admin certificate.
	SimulatorHostingRouteNodePort SimulatorHostingRoute = "NodePort"
)

// SourceMode says whether a source is read once or followed.
type SourceMode string

// Modes of a source.
const (
	SourceModeOnce SourceMode = "Once"
	SourceModeSync SourceMode = "Sync"
)

// SimulatorSource is a cluster the simulator mirrors.
type SimulatorSource struct {
	// SecretName is a Secret of the simulator's namespace with the source's
	// credentials: a kubeconfig (key "kubeconfig"), or a
	// kubernetes.io/service-account-token Secret of the host cluster.
	SecretName string
	// Mode is Once or Sync.
	Mode SourceMode
	// Namespaces limits the namespaced objects to these; empty means all.
	Namespaces []string
	// LabelSelector selects the namespaced objects; nil means all.
	LabelSelector *metav1.LabelSelector
	// QPS is the read rate on the source.
	QPS int32
	// Workloads also mirrors the workload controllers.
	Workloads bool
}

// SourcePhase is where the mirror of a source stands.
type SourcePhase string

// Phases of a source.
const (
	SourceImporting SourcePhase = "Importing"
	SourceSynced    SourcePhase = "Synced"
	SourceSyncing   SourcePhase = "Syncing"
	SourceFailed    SourcePhase = "Failed"
)

// SimulatorSourceStatus is the mirror's state, as the simulator reports it.
type SimulatorSourceStatus struct {
	Phase           SourcePhase
	Objects         map[string]int64
	LastSyncTime    *metav1.Time
	LagMilliseconds int64
	Message         string
	Skipped         []string
	Shadow          ShadowSchedulingStatus
}

// ShadowSchedulingStatus compares the source's bindings with the simulator's decisions.
type ShadowSchedulingStatus struct {
	Same          int64
	Other         int64
	Unschedulable int64
}

// SimulatorPhase is a simple, high-level summary of where a simulator is in its lifecycle.
type SimulatorPhase string

// The phases of a simulator.
const (
	SimulatorPending     SimulatorPhase = "Pending"
	SimulatorCreating    SimulatorPhase = "Creating"
	SimulatorAvailable   SimulatorPhase = "Available"
	SimulatorFailed      SimulatorPhase = "Failed"
	SimulatorTerminating SimulatorPhase = "Terminating"
)

// Condition types of a simulator.
const (
	// SimulatorConditionAvailable is True when the inner kube-apiserver and scheduler are ready.
	SimulatorConditionAvailable = "Available"
	// SimulatorConditionInnerStatePreserved is False once the inner cluster started over.
	SimulatorConditionInnerStatePreserved = "InnerStatePreserved"

	// SimulatorReasonHostingClusterUnreachable is the reason of an
	// Available condition that is Unknown because the hosting cluster
	// (spec.hosting) cannot be reached or refuses the credentials: its
	// Pod cannot be seen.
	SimulatorReasonHostingClusterUnreachable = "HostingClusterUnreachable"
)

// SimulatorStatus is computed from the backing Pod on every read.
type SimulatorStatus struct {
	Phase              SimulatorPhase
	Message            string
	KubeAPIServerURL   string
	PodName            string
	ObservedGeneration int64
	Conditions         []metav1.Condition
	Source             *SimulatorSourceStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// SimulatorList is a list of Simulators.
type SimulatorList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Simulator
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NodePool keeps a number of fake (kwok) Nodes inside one simulator.
type NodePool struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   NodePoolSpec
	Status NodePoolStatus
}

// NodePoolSpec describes the Nodes a pool keeps in its simulator.
type NodePoolSpec struct {
	// SimulatorName is the Simulator in the same namespace that holds the Nodes. Immutable.
	SimulatorName string
	// Replicas is the number of Nodes.
	Replicas *int32
	// Template is what every Node is made from.
	Template NodeTemplate
}

// NodeTemplate is the template for the Nodes of a pool. String values may use
// Go templates with {{ .Index }} and {{ AddCIDR "10.0.0.0/24" .Index }}.
type NodeTemplate struct {
	Metadata NodeTemplateMetadata
	Spec     NodeTemplateSpec
	Status   NodeTemplateStatus
}

// NodeTemplateMetadata holds the labels and annotations of generated Nodes.
type NodeTemplateMetadata struct {
	Labels      map[string]string
	Annotations map[string]string
}

// NodeTemplateSpec holds the spec fields of generated Nodes.
type NodeTemplateSpec struct {
	Taints        []corev1.Taint
	Unschedulable bool
	PodCIDR       string
	ProviderID    string
}

// NodeTemplateStatus holds the status fields of generated Nodes.
type NodeTemplateStatus struct {
	Capacity    corev1.ResourceList
	Allocatable corev1.ResourceList
	NodeInfo    corev1.NodeSystemInfo
}

// Condition types of a nodepool.
const (
	// NodePoolConditionReady is True when every Node of the pool exists and is Ready.
	NodePoolConditionReady = "Ready"

	// NodePoolReasonScaling is the reason of a Ready condition that is False
	// because the pool's Nodes are not yet what its generation asks for.
	NodePoolReasonScaling = "Scaling"
)

// NodePoolStatus is the observed state of a pool.
type NodePoolStatus struct {
	Replicas           int32
	ReadyReplicas      int32
	ObservedGeneration int64
	// Selector is the label selector of the pool's Nodes, for the scale subresource.
	Selector   string
	Conditions []metav1.Condition
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NodePoolList is a list of NodePools.
type NodePoolList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []NodePool
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// SimulatorProxyOptions is the query string of the simulators/proxy subresource.
type SimulatorProxyOptions struct {
	metav1.TypeMeta

	// Path is the path after /proxy, forwarded to the inner kube-apiserver.
	Path string
}

// Modes of the simulators/kubeconfig subresource.
const (
	// KubeconfigModeProxy points at the host apiserver's proxy subresource (the default).
	KubeconfigModeProxy = "proxy"
	// KubeconfigModeDirect points at the inner kube-apiserver with a client certificate.
	KubeconfigModeDirect = "direct"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// SimulatorKubeconfigOptions is the query string of the simulators/kubeconfig subresource.
type SimulatorKubeconfigOptions struct {
	metav1.TypeMeta

	// Mode is "proxy" (default) or "direct".
	Mode string
	// ExpirationSeconds is the requested lifetime of the credential.
	ExpirationSeconds *int64
}
