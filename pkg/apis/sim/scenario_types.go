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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Scenario runs one workload in several simulators, one for each scheduler
// configuration (variant), and compares what each scheduled.
type Scenario struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   ScenarioSpec
	Status ScenarioStatus
}

// ScenarioSpec is a workload and the scheduler configurations to run it
// under. Immutable.
type ScenarioSpec struct {
	// Simulator is the spec of every variant's simulator.
	Simulator SimulatorSpec
	// Variants are the scheduler configurations compared; exactly one of
	// Variants and Simulators.
	Variants []ScenarioVariant
	// Simulators names existing simulators of the namespace.
	Simulators []string
	// NodePools are made in each simulator before the timeline starts.
	NodePools []ScenarioNodePool
	// Initial is what each simulator holds before the timeline starts.
	Initial *ScenarioInitial
	// Timeline is the workload as steps; at most one of Timeline and Trace.
	Timeline []ScenarioStep
	// Trace is the workload as a recorded trace.
	Trace *ScenarioTrace
	// Duration is how long the workload runs, in the scenario's time.
	Duration *metav1.Duration
	// NoiseFloor runs the first variant twice.
	NoiseFloor *bool
}

// ScenarioVariant is one scheduler configuration.
type ScenarioVariant struct {
	Name string
	// SchedulerConfiguration is a kubescheduler.config.k8s.io/v1
	// KubeSchedulerConfiguration; empty means kube-scheduler's defaults.
	SchedulerConfiguration *runtime.RawExtension
}

// ScenarioNodePool is a NodePool made in each simulator of a scenario.
type ScenarioNodePool struct {
	Name     string
	Replicas *int32
	Template NodeTemplate
}

// ScenarioInitial is what the simulators hold before the timeline starts.
type ScenarioInitial struct {
	SimulatorName string
	Source        *SimulatorSource
}

// ScenarioStep is one step: exactly one of Create, Delete, Scale and Wait.
type ScenarioStep struct {
	At     metav1.Duration
	Create *ScenarioObjects
	Delete *ScenarioObjects
	Scale  *ScenarioScale
	Wait   *ScenarioWait
}

// ScenarioObjects are objects inline or in a ConfigMap (exactly one).
type ScenarioObjects struct {
	Objects       []runtime.RawExtension
	ConfigMapName string
}

// ScaleKind is what a scale step scales.
type ScaleKind string

// Kinds a scale step scales.
const (
	ScaleNodePool    ScaleKind = "NodePool"
	ScaleDeployment  ScaleKind = "Deployment"
	ScaleReplicaSet  ScaleKind = "ReplicaSet"
	ScaleStatefulSet ScaleKind = "StatefulSet"
)

// ScenarioScale sets the replicas of one object.
type ScenarioScale struct {
	Kind      ScaleKind
	Namespace string
	Name      string
	Replicas  int32
}

// WaitFor is what a wait step waits for.
type WaitFor string

// What a wait step waits for.
const (
	WaitPodsSettled WaitFor = "PodsSettled"
	WaitNodesReady  WaitFor = "NodesReady"
)

// ScenarioWait waits for a condition inside each simulator.
type ScenarioWait struct {
	For     WaitFor
	Timeout *metav1.Duration
}

// ScenarioTrace is a recorded trace replayed as the workload.
type ScenarioTrace struct {
	ConfigMapName string
	Key           string
	Speed         int32
}

// ScenarioPhase is where a scenario stands.
type ScenarioPhase string

// Phases of a scenario.
const (
	ScenarioPending   ScenarioPhase = "Pending"
	ScenarioRunning   ScenarioPhase = "Running"
	ScenarioSucceeded ScenarioPhase = "Succeeded"
	ScenarioFailed    ScenarioPhase = "Failed"
)

// ScenarioStatus is each variant's outcome and their comparison.
type ScenarioStatus struct {
	Phase              ScenarioPhase
	ObservedGeneration int64
	StartTime          *metav1.Time
	CompletionTime     *metav1.Time
	Progress           int32
	Conditions         []metav1.Condition
	Variants           []ScenarioVariantStatus
	Comparisons        []ScenarioComparison
}

// ScenarioVariantStatus is what one variant's scheduler did with the workload.
type ScenarioVariantStatus struct {
	Name               string
	SimulatorName      string
	Progress           int32
	Message            string
	PodsScheduled      int64
	PodsUnschedulable  int64
	PodsPreempted      int64
	SchedulingAttempts int64
	BindLatency        LatencySummary
	NodesUsed          int32
	CPU                AllocationSummary
	Memory             AllocationSummary
	LargestFit         map[string]resource.Quantity
	Rejections         map[string]int64
	Lag                LagSummary
}

// LatencySummary is a distribution of durations, in milliseconds.
type LatencySummary struct {
	P50Milliseconds int64
	P99Milliseconds int64
}

// AllocationSummary is a ratio sampled over a run, in percent.
type AllocationSummary struct {
	MeanPercent int32
	P90Percent  int32
}

// LagSummary is how late events were applied against their scaled time.
type LagSummary struct {
	P99Milliseconds int64
	MaxMilliseconds int64
	Late            int64
}

// ScenarioComparison compares two variants' placements, Pod by Pod.
type ScenarioComparison struct {
	Variant                 string
	Baseline                string
	NoiseFloor              bool
	PlacedDifferently       int64
	ScheduledOnlyInVariant  int64
	ScheduledOnlyInBaseline int64
	NodesUsedDelta          int32
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ScenarioList is a list of Scenarios.
type ScenarioList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Scenario
}
