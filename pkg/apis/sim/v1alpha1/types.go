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

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Simulator is a scheduler simulator (kube-apiserver + kube-scheduler + kwok)
// running in a Pod of the host cluster, in the Simulator's namespace.
type Simulator struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the desired simulator (KEP-159).
	// +optional
	Spec SimulatorSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is computed from the backing Pod on every read.
	// +optional
	Status SimulatorStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SimulatorSpec follows KEP-159. All fields but hosting may be updated; an
// update replaces the Pod.
type SimulatorSpec struct {
	// KubeAPIServerPort is the port of the simulator's inner kube-apiserver.
	// Passed to the "simulator" container as env KUBE_API_PORT. Defaults to 3131.
	// +optional
	KubeAPIServerPort int32 `json:"kubeAPIServerPort,omitempty" protobuf:"varint,1,opt,name=kubeAPIServerPort"`
	// SimulatorServerPort is the port of the simulator's own server (health,
	// scheduler configuration, reset). Passed as env PORT. Defaults to 1212.
	// +optional
	SimulatorServerPort int32 `json:"simulatorServerPort,omitempty" protobuf:"varint,2,opt,name=simulatorServerPort"`
	// KubeSchedulerConfigurationPath is the path of a KubeSchedulerConfiguration file
	// inside the "simulator" container (mount it with podTemplate). Passed as env
	// KUBE_SCHEDULER_CONFIG_PATH. Empty means the scheduler's defaults.
	// +optional
	KubeSchedulerConfigurationPath string `json:"kubeSchedulerConfigurationPath,omitempty" protobuf:"bytes,3,opt,name=kubeSchedulerConfigurationPath"`
	// EtcdURL is the http(s) URL of an external etcd for the inner kube-apiserver;
	// each simulator gets its own key prefix there. Passed as env
	// KUBE_SCHEDULER_SIMULATOR_ETCD_URL. Empty means an "etcd" container in the Pod.
	// +optional
	EtcdURL string `json:"etcdURL,omitempty" protobuf:"bytes,4,opt,name=etcdURL"`
	// EtcdTLSSecretName names a Secret in the simulator's namespace that the
	// inner kube-apiserver uses to reach an https etcdURL: tls.crt and tls.key
	// are its client certificate (for etcd's --client-cert-auth), ca.crt the CA
	// of etcd's serving certificate. The caller must be allowed to get that
	// Secret. Requires etcdURL.
	// +optional
	EtcdTLSSecretName string `json:"etcdTLSSecretName,omitempty" protobuf:"bytes,8,opt,name=etcdTLSSecretName"`
	// EtcdPersistentVolumeClaimName names a PersistentVolumeClaim in the
	// simulator's namespace that holds the data of the "etcd" container, in
	// place of a volume that goes with the Pod: the objects made inside then
	// survive a new Pod (a spec change, a lost or deleted Pod), and the new
	// Pod starts once the old one has ended, as two etcds on one data
	// directory would corrupt it. Naming a claim needs the caller's create
	// on pods in the namespace, as the host asks of a Pod that mounts one.
	// Its volume must be writable by the Pod's user and group (65532, also
	// its fsGroup). The claim is the user's: deleting the simulator leaves
	// it and its data, and a new simulator on it starts empty (keys are per
	// simulator UID). Give a claim to one simulator at a time (access mode
	// ReadWriteOncePod, where its volume supports it, has the host enforce
	// that). Not with etcdURL.
	// +optional
	EtcdPersistentVolumeClaimName string `json:"etcdPersistentVolumeClaimName,omitempty" protobuf:"bytes,10,opt,name=etcdPersistentVolumeClaimName"`
	// CORSAllowedOriginList is the list of origins (scheme://host[:port]) allowed by
	// the inner kube-apiserver and the simulator server. Passed as env CORS_ALLOWED_ORIGIN_LIST.
	// +optional
	// +listType=set
	CORSAllowedOriginList []string `json:"corsAllowedOriginList,omitempty" protobuf:"bytes,5,rep,name=corsAllowedOriginList"`
	// Image is the simulator image. Defaults to this project's simulator image at
	// the server's version. A custom image must honour the same environment contract.
	// +optional
	Image string `json:"image,omitempty" protobuf:"bytes,6,opt,name=image"`
	// PodTemplate is merged into the generated Pod with strategic merge: its
	// containers named "simulator" and "etcd" take precedence over the generated
	// ones; other containers and volumes are added.
	// +optional
	PodTemplate *corev1.PodTemplateSpec `json:"podTemplate,omitempty" protobuf:"bytes,7,opt,name=podTemplate"`
	// Source is a cluster the simulator mirrors: its Pod reads the source
	// with the credentials of source.secretName, never with the server's,
	// and status.source says how the mirror stands.
	// +optional
	Source *SimulatorSource `json:"source,omitempty" protobuf:"bytes,9,opt,name=source"`
	// Hosting is another cluster that runs the simulator's Pod, Service,
	// credentials Secret and NetworkPolicy, in hosting.namespace there;
	// the accounts of simulators/kubeconfig stay in this cluster. Absent
	// means the cluster that serves this API. Immutable: moving a
	// simulator would leave its objects behind in the first cluster.
	// +optional
	Hosting *SimulatorHosting `json:"hosting,omitempty" protobuf:"bytes,11,opt,name=hosting"`
}

// SimulatorHosting is a cluster other than the one that serves this API,
// where a simulator runs.
type SimulatorHosting struct {
	// SecretName names a Secret in the simulator's namespace with a
	// kubeconfig (key "kubeconfig") of the hosting cluster: inline
	// credentials and CA (no files, exec or auth-provider plugins, proxy)
	// and an https server. The server acts there with it, so the caller
	// must be allowed to get that Secret.
	SecretName string `json:"secretName" protobuf:"bytes,1,opt,name=secretName"`
	// Namespace is the namespace of the hosting cluster where the
	// simulator's objects are made.
	Namespace string `json:"namespace" protobuf:"bytes,2,opt,name=namespace"`
	// Route is how the server reaches the simulator there: PodsProxy (the
	// default) through the hosting cluster's pods/proxy, which needs
	// nothing of its network; NodePort to a NodePort of the simulator's
	// Service at its Pod's node, faster where the server can reach the
	// hosting cluster's nodes.
	// +optional
	Route SimulatorHostingRoute `json:"route,omitempty" protobuf:"bytes,3,opt,name=route,casttype=SimulatorHostingRoute"`
}

// SimulatorHostingRoute is how the server reaches a hosted simulator.
// +enum
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
// +enum
type SourceMode string

// Modes of a source.
const (
	// SourceModeOnce imports the source once.
	SourceModeOnce SourceMode = "Once"
	// SourceModeSync imports the source, then follows its changes; Pods the
	// source's scheduler binds are bound to the same Node inside, with the
	// simulator's own choice kept beside (shadow scheduling).
	SourceModeSync SourceMode = "Sync"
)

// SimulatorSource is a cluster the simulator mirrors.
type SimulatorSource struct {
	// SecretName names a Secret in the simulator's namespace with the
	// source's credentials: a kubeconfig (key "kubeconfig"), or a
	// kubernetes.io/service-account-token Secret of the host cluster itself.
	// The caller must be allowed to get that Secret.
	SecretName string `json:"secretName" protobuf:"bytes,1,opt,name=secretName"`
	// Mode is Once or Sync. Defaults to Once.
	// +optional
	Mode SourceMode `json:"mode,omitempty" protobuf:"bytes,2,opt,name=mode,casttype=SourceMode"`
	// Namespaces limits the namespaced objects mirrored to these
	// namespaces. Empty means all.
	// +optional
	// +listType=set
	Namespaces []string `json:"namespaces,omitempty" protobuf:"bytes,3,rep,name=namespaces"`
	// LabelSelector selects the namespaced objects mirrored (Pods, claims,
	// PodDisruptionBudgets, ...). Cluster-scoped objects are all mirrored.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty" protobuf:"bytes,4,opt,name=labelSelector"`
	// QPS is the rate of requests to the source. Defaults to 50.
	// +optional
	QPS int32 `json:"qps,omitempty" protobuf:"varint,5,opt,name=qps"`
	// Workloads also mirrors the workload controllers (Deployments,
	// ReplicaSets, StatefulSets, DaemonSets, Jobs), which then own the
	// mirrored Pods rather than making others.
	// +optional
	Workloads bool `json:"workloads,omitempty" protobuf:"varint,6,opt,name=workloads"`
}

// SourcePhase is where the mirror of a source stands.
// +enum
type SourcePhase string

// Phases of a source.
const (
	// SourceImporting means the first copy is being made.
	SourceImporting SourcePhase = "Importing"
	// SourceSynced means a Once source was copied whole.
	SourceSynced SourcePhase = "Synced"
	// SourceSyncing means a Sync source was copied and its changes are followed.
	SourceSyncing SourcePhase = "Syncing"
	// SourceFailed means the source cannot be read (see message).
	SourceFailed SourcePhase = "Failed"
)

// SimulatorSourceStatus is how the mirror of the source stands, as the
// simulator last reported it.
type SimulatorSourceStatus struct {
	// Phase is Importing, Synced, Syncing or Failed.
	// +optional
	Phase SourcePhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=SourcePhase"`
	// Objects counts the objects mirrored, by resource.
	// +optional
	Objects map[string]int64 `json:"objects,omitempty" protobuf:"bytes,2,rep,name=objects"`
	// LastSyncTime is when the mirror last held everything the source had sent.
	// +optional
	LastSyncTime *metav1.Time `json:"lastSyncTime,omitempty" protobuf:"bytes,3,opt,name=lastSyncTime"`
	// LagMilliseconds is how long the last change took from the source to
	// the simulator.
	// +optional
	LagMilliseconds int64 `json:"lagMilliseconds,omitempty" protobuf:"varint,4,opt,name=lagMilliseconds"`
	// Message is the last error, in the source's words.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
	// Skipped are what the source forbids reading (403), left out while the
	// rest is mirrored: a resource (nodes), a resource in a namespace
	// (pods/team), or a group version (resource.k8s.io/v1).
	// +optional
	// +listType=set
	Skipped []string `json:"skipped,omitempty" protobuf:"bytes,7,rep,name=skipped"`
	// Shadow compares, for the Pods the source's scheduler bound after the
	// simulator's had decided, the two decisions.
	// +optional
	Shadow ShadowSchedulingStatus `json:"shadow,omitempty" protobuf:"bytes,6,opt,name=shadow"`
}

// ShadowSchedulingStatus compares the source's bindings with the
// simulator's own decisions.
type ShadowSchedulingStatus struct {
	// Same counts the Pods bound to the Node the simulator chose.
	// +optional
	Same int64 `json:"same,omitempty" protobuf:"varint,1,opt,name=same"`
	// Other counts the Pods bound to another Node.
	// +optional
	Other int64 `json:"other,omitempty" protobuf:"varint,2,opt,name=other"`
	// Unschedulable counts the Pods for which the simulator found no Node.
	// +optional
	Unschedulable int64 `json:"unschedulable,omitempty" protobuf:"varint,3,opt,name=unschedulable"`
}

// SimulatorPhase is a simple, high-level summary of where a simulator is in its lifecycle.
type SimulatorPhase string

// The phases of a simulator.
const (
	// SimulatorPending means the Pod does not exist yet or is not scheduled.
	SimulatorPending SimulatorPhase = "Pending"
	// SimulatorCreating means the Pod is scheduled and the inner apiserver is not ready yet.
	SimulatorCreating SimulatorPhase = "Creating"
	// SimulatorAvailable means the inner kube-apiserver and scheduler are ready.
	SimulatorAvailable SimulatorPhase = "Available"
	// SimulatorFailed means the Pod cannot become ready without a change (see message).
	SimulatorFailed SimulatorPhase = "Failed"
	// SimulatorTerminating means the simulator is being deleted.
	SimulatorTerminating SimulatorPhase = "Terminating"
)

// Condition types of a simulator.
const (
	// SimulatorConditionAvailable is True when the inner kube-apiserver and scheduler are ready.
	SimulatorConditionAvailable = "Available"
	// SimulatorConditionInnerStatePreserved is False once the inner cluster
	// started over (a new Pod without an external etcd: what users made
	// inside is gone), with why and when; True while it holds everything
	// made inside since the simulator was created.
	SimulatorConditionInnerStatePreserved = "InnerStatePreserved"

	// SimulatorReasonHostingClusterUnreachable is the reason of an
	// Available condition that is Unknown because the hosting cluster
	// (spec.hosting) cannot be reached or refuses the credentials: its
	// Pod cannot be seen.
	SimulatorReasonHostingClusterUnreachable = "HostingClusterUnreachable"
)

// SimulatorStatus is computed from the backing Pod on every read.
type SimulatorStatus struct {
	// Phase summarizes the simulator's state.
	// +optional
	Phase SimulatorPhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=SimulatorPhase"`
	// Message is a human-readable explanation of the phase.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// KubeAPIServerURL is the in-cluster URL (Service) of the inner kube-apiserver.
	// +optional
	KubeAPIServerURL string `json:"kubeAPIServerURL,omitempty" protobuf:"bytes,3,opt,name=kubeAPIServerURL"`
	// PodName is the backing Pod.
	// +optional
	PodName string `json:"podName,omitempty" protobuf:"bytes,4,opt,name=podName"`
	// ObservedGeneration is the generation the backing Pod was made from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,5,opt,name=observedGeneration"`
	// Conditions hold the latest observations of the simulator's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
	// Source is how the mirror of spec.source stands.
	// +optional
	Source *SimulatorSourceStatus `json:"source,omitempty" protobuf:"bytes,7,opt,name=source"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// SimulatorList is a list of Simulators.
type SimulatorList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Items []Simulator `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NodePool keeps a number of fake (kwok) Nodes inside one simulator.
type NodePool struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the desired set of Nodes.
	// +optional
	Spec NodePoolSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state of the Nodes.
	// +optional
	Status NodePoolStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NodePoolSpec describes the Nodes a pool keeps in its simulator.
type NodePoolSpec struct {
	// SimulatorName is the Simulator, in the same namespace, that holds the Nodes. Immutable.
	SimulatorName string `json:"simulatorName" protobuf:"bytes,1,opt,name=simulatorName"`
	// Replicas is the number of Nodes. Defaults to 1.
	// +optional
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"`
	// Template is what every Node is made from. Nodes are named <pool>-<index>.
	// +optional
	Template NodeTemplate `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// NodeTemplate is the template for the Nodes of a pool. Label and annotation
// values, podCIDR and providerID may use Go templates with {{ .Index }},
// {{ .Name }} and {{ AddCIDR "10.0.0.0/24" .Index }}.
type NodeTemplate struct {
	// Metadata holds the labels and annotations of each Node.
	// +optional
	Metadata NodeTemplateMetadata `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec holds the spec fields of each Node.
	// +optional
	Spec NodeTemplateSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status holds the status fields of each Node.
	// +optional
	Status NodeTemplateStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NodeTemplateMetadata holds the labels and annotations of generated Nodes.
type NodeTemplateMetadata struct {
	// +optional
	Labels map[string]string `json:"labels,omitempty" protobuf:"bytes,1,rep,name=labels"`
	// +optional
	Annotations map[string]string `json:"annotations,omitempty" protobuf:"bytes,2,rep,name=annotations"`
}

// NodeTemplateSpec holds the spec fields of generated Nodes.
type NodeTemplateSpec struct {
	// +optional
	// +listType=atomic
	Taints []corev1.Taint `json:"taints,omitempty" protobuf:"bytes,1,rep,name=taints"`
	// +optional
	Unschedulable bool `json:"unschedulable,omitempty" protobuf:"varint,2,opt,name=unschedulable"`
	// PodCIDR of each Node, usually {{ AddCIDR "10.0.0.0/24" .Index }}.
	// +optional
	PodCIDR string `json:"podCIDR,omitempty" protobuf:"bytes,3,opt,name=podCIDR"`
	// +optional
	ProviderID string `json:"providerID,omitempty" protobuf:"bytes,4,opt,name=providerID"`
}

// NodeTemplateStatus holds the status fields of generated Nodes.
type NodeTemplateStatus struct {
	// Capacity of each Node. Defaults to cpu 32, memory 256Gi, pods 110.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
	// Allocatable of each Node. Defaults to the capacity.
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty" protobuf:"bytes,2,rep,name=allocatable,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
	// NodeInfo of each Node.
	// +optional
	NodeInfo corev1.NodeSystemInfo `json:"nodeInfo,omitempty" protobuf:"bytes,3,opt,name=nodeInfo"`
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
	// Replicas is the number of Nodes that exist.
	// +optional
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// ReadyReplicas is the number of Nodes that are Ready.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,2,opt,name=readyReplicas"`
	// ObservedGeneration is the generation last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// Selector is the label selector of the pool's Nodes (for the scale subresource).
	// +optional
	Selector string `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
	// Conditions hold the latest observations of the pool's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,5,rep,name=conditions"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NodePoolList is a list of NodePools.
type NodePoolList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Items []NodePool `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +k8s:conversion-gen:explicit-from=net/url.Values
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// SimulatorProxyOptions is the query string of the simulators/proxy subresource.
type SimulatorProxyOptions struct {
	metav1.TypeMeta `json:",inline"`

	// Path is the path after /proxy, forwarded to the inner kube-apiserver.
	// +optional
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
}

// Modes of the simulators/kubeconfig subresource.
const (
	// KubeconfigModeProxy points at the host apiserver's proxy subresource (the default).
	KubeconfigModeProxy = "proxy"
	// KubeconfigModeDirect points at the inner kube-apiserver with a client certificate.
	KubeconfigModeDirect = "direct"
)

// +k8s:conversion-gen:explicit-from=net/url.Values
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// SimulatorKubeconfigOptions is the query string of the simulators/kubeconfig subresource.
type SimulatorKubeconfigOptions struct {
	metav1.TypeMeta `json:",inline"`

	// Mode is "proxy" (default: through the host apiserver with a token) or
	// "direct" (the inner kube-apiserver with a client certificate).
	// +optional
	Mode string `json:"mode,omitempty" protobuf:"bytes,1,opt,name=mode"`
	// ExpirationSeconds is the requested lifetime of the credential.
	// +optional
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty" protobuf:"varint,2,opt,name=expirationSeconds"`
}
