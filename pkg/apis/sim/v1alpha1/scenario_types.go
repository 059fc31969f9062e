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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Scenario runs one workload in several simulators, one for each scheduler
// configuration (variant), and compares what each scheduled.
type Scenario struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the workload and the variants. Immutable: a changed workload
	// or configuration is a new scenario (and another comparison).
	// +optional
	Spec ScenarioSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is each variant's outcome and their comparison.
	// +optional
	Status ScenarioStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ScenarioSpec is a workload and the scheduler configurations to run it under.
type ScenarioSpec struct {
	// Simulator is the spec of every variant's simulator (its ports, image,
	// Pod template...). The scenario makes one simulator per variant, named
	// SCENARIO-VARIANT and owned by the scenario.
	// +optional
	Simulator SimulatorSpec `json:"simulator,omitempty" protobuf:"bytes,1,opt,name=simulator"`
	// Variants are the scheduler configurations compared (at most 10).
	// Exactly one of variants and simulators. The caller must be allowed
	// to create simulators, and what spec.simulator needs of a simulator's
	// creator.
	// +optional
	// +listType=map
	// +listMapKey=name
	Variants []ScenarioVariant `json:"variants,omitempty" protobuf:"bytes,2,rep,name=variants"`
	// Simulators names existing simulators in the scenario's namespace to run
	// the workload in, each with the scheduler configuration it has. They
	// are not deleted with the scenario. Exactly one of variants and
	// simulators. The caller must be allowed to create simulators/api on
	// each (the workload runs through the simulator's API).
	// +optional
	// +listType=set
	Simulators []string `json:"simulators,omitempty" protobuf:"bytes,3,rep,name=simulators"`
	// NodePools are made in each variant's simulator (named
	// SIMULATOR-POOL) before the timeline starts. The caller must be
	// allowed to create nodepools.
	// +optional
	// +listType=map
	// +listMapKey=name
	NodePools []ScenarioNodePool `json:"nodePools,omitempty" protobuf:"bytes,4,rep,name=nodePools"`
	// Initial is what each simulator holds before the timeline starts.
	// Empty means nothing but the NodePools.
	// +optional
	Initial *ScenarioInitial `json:"initial,omitempty" protobuf:"bytes,5,opt,name=initial"`
	// Timeline is the workload, as steps at offsets from the start. At most
	// one of timeline and trace.
	// +optional
	// +listType=atomic
	Timeline []ScenarioStep `json:"timeline,omitempty" protobuf:"bytes,6,rep,name=timeline"`
	// Trace is the workload as a recorded trace. At most one of timeline
	// and trace.
	// +optional
	Trace *ScenarioTrace `json:"trace,omitempty" protobuf:"bytes,7,opt,name=trace"`
	// Duration is how long the workload runs, in the scenario's time (a
	// trace's time before its speed-up). Defaults to the last step's offset
	// (or the trace's length) and one minute.
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty" protobuf:"bytes,8,opt,name=duration"`
	// NoiseFloor runs the first variant twice, in a second simulator named
	// SCENARIO-VARIANT-again, so that the comparison shows how much two runs
	// of one configuration differ by chance (kube-scheduler breaks score ties
	// at random). Defaults to true with variants; ignored with simulators.
	// +optional
	NoiseFloor *bool `json:"noiseFloor,omitempty" protobuf:"varint,9,opt,name=noiseFloor"`
}

// ScenarioVariant is one scheduler configuration.
type ScenarioVariant struct {
	// Name is a DNS label, unique in the scenario.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// SchedulerConfiguration is a KubeSchedulerConfiguration
	// (kubescheduler.config.k8s.io/v1) for the variant's scheduler, decoded
	// strictly (an unknown field is refused); its profiles may name only
	// the plugins sim-scheduler has. Empty means kube-scheduler's defaults.
	// +optional
	SchedulerConfiguration *runtime.RawExtension `json:"schedulerConfiguration,omitempty" protobuf:"bytes,2,opt,name=schedulerConfiguration"`
}

// ScenarioNodePool is a NodePool made in each simulator of a scenario.
type ScenarioNodePool struct {
	// Name is the pool's name in the scenario; timeline steps name it so.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Replicas is the number of Nodes at the start. Defaults to 1.
	// +optional
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"`
	// Template is the Nodes' template, as in a NodePool.
	// +optional
	Template NodeTemplate `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// ScenarioInitial is what the simulators hold before the timeline starts.
// At most one field is set.
type ScenarioInitial struct {
	// SimulatorName copies another simulator of the namespace (its export)
	// into each simulator. The caller must be allowed to get that
	// simulator's export.
	// +optional
	SimulatorName string `json:"simulatorName,omitempty" protobuf:"bytes,1,opt,name=simulatorName"`
	// Source imports a cluster once into each simulator, as a simulator's
	// spec.source does (its mode must be Once).
	// +optional
	Source *SimulatorSource `json:"source,omitempty" protobuf:"bytes,2,opt,name=source"`
}

// ScenarioStep is one step of a timeline: exactly one of create, delete,
// scale and wait.
type ScenarioStep struct {
	// At is the step's offset from the start. Steps run in order; a step
	// does not start before the one above it ended (a wait may end late).
	At metav1.Duration `json:"at" protobuf:"bytes,1,opt,name=at"`
	// Create creates these objects in each simulator.
	// +optional
	Create *ScenarioObjects `json:"create,omitempty" protobuf:"bytes,2,opt,name=create"`
	// Delete deletes these objects (matched by kind, namespace and name) in
	// each simulator.
	// +optional
	Delete *ScenarioObjects `json:"delete,omitempty" protobuf:"bytes,3,opt,name=delete"`
	// Scale sets the replicas of a NodePool of the scenario or of a
	// workload inside the simulators.
	// +optional
	Scale *ScenarioScale `json:"scale,omitempty" protobuf:"bytes,4,opt,name=scale"`
	// Wait waits for a condition inside the simulators.
	// +optional
	Wait *ScenarioWait `json:"wait,omitempty" protobuf:"bytes,5,opt,name=wait"`
}

// ScenarioObjects are objects given inline or in a ConfigMap: exactly one
// of objects and configMapName.
type ScenarioObjects struct {
	// Objects are Kubernetes objects (apiVersion, kind, metadata...).
	// +optional
	// +listType=atomic
	Objects []runtime.RawExtension `json:"objects,omitempty" protobuf:"bytes,1,rep,name=objects"`
	// ConfigMapName names a ConfigMap of the scenario's namespace whose
	// values are YAML or JSON documents of objects, read when the scenario
	// starts. The caller must be allowed to get it.
	// +optional
	ConfigMapName string `json:"configMapName,omitempty" protobuf:"bytes,2,opt,name=configMapName"`
}

// ScaleKind is what a scale step scales.
// +enum
type ScaleKind string

// Kinds a scale step scales.
const (
	// ScaleNodePool scales a NodePool of spec.nodePools.
	ScaleNodePool ScaleKind = "NodePool"
	// ScaleDeployment, ScaleReplicaSet and ScaleStatefulSet scale a
	// workload inside the simulators.
	ScaleDeployment  ScaleKind = "Deployment"
	ScaleReplicaSet  ScaleKind = "ReplicaSet"
	ScaleStatefulSet ScaleKind = "StatefulSet"
)

// ScenarioScale sets the replicas of one object.
type ScenarioScale struct {
	// Kind is NodePool, Deployment, ReplicaSet or StatefulSet.
	Kind ScaleKind `json:"kind" protobuf:"bytes,1,opt,name=kind,casttype=ScaleKind"`
	// Namespace of a workload inside the simulators; empty for a NodePool.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	// Name of the NodePool in spec.nodePools, or of the workload.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Replicas is the new number of replicas.
	Replicas int32 `json:"replicas" protobuf:"varint,4,opt,name=replicas"`
}

// WaitFor is what a wait step waits for.
// +enum
type WaitFor string

// What a wait step waits for.
const (
	// WaitPodsSettled waits until every Pod is bound or found
	// unschedulable (PodScheduled False) since its last change.
	WaitPodsSettled WaitFor = "PodsSettled"
	// WaitNodesReady waits until every Node is Ready.
	WaitNodesReady WaitFor = "NodesReady"
)

// ScenarioWait waits for a condition inside each simulator.
type ScenarioWait struct {
	// For is PodsSettled or NodesReady.
	For WaitFor `json:"for" protobuf:"bytes,1,opt,name=for,casttype=WaitFor"`
	// Timeout bounds the wait; a wait that times out is reported in the
	// variant's status and the timeline goes on. Defaults to one minute.
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty" protobuf:"bytes,2,opt,name=timeout"`
}

// ScenarioTrace is a recorded trace replayed as the workload.
type ScenarioTrace struct {
	// ConfigMapName names a ConfigMap of the scenario's namespace holding
	// the trace, as JSON lines of events (a source's recording: time, type,
	// resource, namespace, name, object). The caller must be allowed to get
	// it.
	ConfigMapName string `json:"configMapName" protobuf:"bytes,1,opt,name=configMapName"`
	// Key is the ConfigMap's key holding the trace. Defaults to "trace".
	// +optional
	Key string `json:"key,omitempty" protobuf:"bytes,2,opt,name=key"`
	// Speed divides the trace's time: 60 replays an hour in a minute.
	// Defaults to 1.
	// +optional
	Speed int32 `json:"speed,omitempty" protobuf:"varint,3,opt,name=speed"`
}

// ScenarioPhase is where a scenario stands.
// +enum
type ScenarioPhase string

// Phases of a scenario.
const (
	// ScenarioPending means its simulators are being made or are not yet
	// Available.
	ScenarioPending ScenarioPhase = "Pending"
	// ScenarioRunning means the workload runs.
	ScenarioRunning ScenarioPhase = "Running"
	// ScenarioSucceeded means every variant ran the whole workload.
	ScenarioSucceeded ScenarioPhase = "Succeeded"
	// ScenarioFailed means a variant could not run it (see conditions).
	ScenarioFailed ScenarioPhase = "Failed"
)

// ScenarioStatus is each variant's outcome and their comparison.
type ScenarioStatus struct {
	// Phase is Pending, Running, Succeeded or Failed.
	// +optional
	Phase ScenarioPhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=ScenarioPhase"`
	// ObservedGeneration is the generation the status is about.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,2,opt,name=observedGeneration"`
	// StartTime is when the workload started in every simulator.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty" protobuf:"bytes,3,opt,name=startTime"`
	// CompletionTime is when the last variant finished.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty" protobuf:"bytes,4,opt,name=completionTime"`
	// Progress is the share of the duration run, in percent, by the slowest
	// variant.
	// +optional
	Progress int32 `json:"progress,omitempty" protobuf:"varint,5,opt,name=progress"`
	// Conditions: Ready (the simulators are Available) and Complete.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
	// Variants is each variant's outcome, in spec order; the noise floor's
	// second run comes last.
	// +optional
	// +listType=map
	// +listMapKey=name
	Variants []ScenarioVariantStatus `json:"variants,omitempty" protobuf:"bytes,7,rep,name=variants"`
	// Comparisons compare each variant with the first, and the first with
	// its second run (the noise floor).
	// +optional
	// +listType=atomic
	Comparisons []ScenarioComparison `json:"comparisons,omitempty" protobuf:"bytes,8,rep,name=comparisons"`
}

// ScenarioVariantStatus is what one variant's scheduler did with the workload.
type ScenarioVariantStatus struct {
	// Name is the variant's name; the noise floor's second run is
	// VARIANT-again.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// SimulatorName is the simulator it runs in.
	SimulatorName string `json:"simulatorName" protobuf:"bytes,2,opt,name=simulatorName"`
	// Progress is the share of the duration run, in percent.
	// +optional
	Progress int32 `json:"progress,omitempty" protobuf:"varint,3,opt,name=progress"`
	// Message says what went wrong, or why the variant runs late.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// PodsScheduled, PodsUnschedulable and PodsPreempted count Pods: bound;
	// pending with PodScheduled False at the end; evicted by preemption.
	// +optional
	PodsScheduled int64 `json:"podsScheduled,omitempty" protobuf:"varint,5,opt,name=podsScheduled"`
	// +optional
	PodsUnschedulable int64 `json:"podsUnschedulable,omitempty" protobuf:"varint,6,opt,name=podsUnschedulable"`
	// +optional
	PodsPreempted int64 `json:"podsPreempted,omitempty" protobuf:"varint,7,opt,name=podsPreempted"`
	// SchedulingAttempts counts the scheduler's attempts (each cycle that
	// ended bound or unschedulable).
	// +optional
	SchedulingAttempts int64 `json:"schedulingAttempts,omitempty" protobuf:"varint,8,opt,name=schedulingAttempts"`
	// BindLatency is the time from a Pod's creation to its binding, in
	// the simulator's (wall) time.
	// +optional
	BindLatency LatencySummary `json:"bindLatency,omitempty" protobuf:"bytes,9,opt,name=bindLatency"`
	// NodesUsed is the largest number of Nodes that held a Pod at once.
	// +optional
	NodesUsed int32 `json:"nodesUsed,omitempty" protobuf:"varint,10,opt,name=nodesUsed"`
	// CPU and Memory are requested ÷ allocatable over the Nodes that held a
	// Pod, sampled through the run.
	// +optional
	CPU AllocationSummary `json:"cpu,omitempty" protobuf:"bytes,11,opt,name=cpu"`
	// +optional
	Memory AllocationSummary `json:"memory,omitempty" protobuf:"bytes,12,opt,name=memory"`
	// LargestFit is the largest Pod (CPU and memory requests) that would
	// still fit on one Node at the end: the fragmentation left.
	// +optional
	LargestFit map[string]resource.Quantity `json:"largestFit,omitempty" protobuf:"bytes,13,rep,name=largestFit"`
	// Rejections counts, by plugin, the Nodes a plugin filtered out,
	// summed over the attempts that found no Node.
	// +optional
	Rejections map[string]int64 `json:"rejections,omitempty" protobuf:"bytes,14,rep,name=rejections"`
	// Lag is how late the steps and trace events were applied, against
	// their scaled time.
	// +optional
	Lag LagSummary `json:"lag,omitempty" protobuf:"bytes,15,opt,name=lag"`
}

// LatencySummary is a distribution of durations, in milliseconds.
type LatencySummary struct {
	// +optional
	P50Milliseconds int64 `json:"p50Milliseconds,omitempty" protobuf:"varint,1,opt,name=p50Milliseconds"`
	// +optional
	P99Milliseconds int64 `json:"p99Milliseconds,omitempty" protobuf:"varint,2,opt,name=p99Milliseconds"`
}

// AllocationSummary is a ratio sampled over a run, in percent.
type AllocationSummary struct {
	// +optional
	MeanPercent int32 `json:"meanPercent,omitempty" protobuf:"varint,1,opt,name=meanPercent"`
	// +optional
	P90Percent int32 `json:"p90Percent,omitempty" protobuf:"varint,2,opt,name=p90Percent"`
}

// LagSummary is how late events were applied against their scaled time.
type LagSummary struct {
	// +optional
	P99Milliseconds int64 `json:"p99Milliseconds,omitempty" protobuf:"varint,1,opt,name=p99Milliseconds"`
	// +optional
	MaxMilliseconds int64 `json:"maxMilliseconds,omitempty" protobuf:"varint,2,opt,name=maxMilliseconds"`
	// Late counts the events applied more than 100 ms after their scaled
	// time.
	// +optional
	Late int64 `json:"late,omitempty" protobuf:"varint,3,opt,name=late"`
}

// ScenarioComparison compares two variants' placements, Pod by Pod
// (namespace/name).
type ScenarioComparison struct {
	// Variant and Baseline are the variants compared.
	Variant  string `json:"variant" protobuf:"bytes,1,opt,name=variant"`
	Baseline string `json:"baseline" protobuf:"bytes,2,opt,name=baseline"`
	// NoiseFloor is true when Variant is Baseline's second run.
	// +optional
	NoiseFloor bool `json:"noiseFloor,omitempty" protobuf:"varint,3,opt,name=noiseFloor"`
	// PlacedDifferently counts the Pods bound in both, to different Nodes.
	// +optional
	PlacedDifferently int64 `json:"placedDifferently,omitempty" protobuf:"varint,4,opt,name=placedDifferently"`
	// ScheduledOnlyInVariant and ScheduledOnlyInBaseline count the Pods
	// bound in one and not the other.
	// +optional
	ScheduledOnlyInVariant int64 `json:"scheduledOnlyInVariant,omitempty" protobuf:"varint,5,opt,name=scheduledOnlyInVariant"`
	// +optional
	ScheduledOnlyInBaseline int64 `json:"scheduledOnlyInBaseline,omitempty" protobuf:"varint,6,opt,name=scheduledOnlyInBaseline"`
	// NodesUsedDelta is the variant's NodesUsed minus the baseline's.
	// +optional
	NodesUsedDelta int32 `json:"nodesUsedDelta,omitempty" protobuf:"varint,7,opt,name=nodesUsedDelta"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ScenarioList is a list of Scenarios.
type ScenarioList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Items []Scenario `json:"items" protobuf:"bytes,2,rep,name=items"`
}
