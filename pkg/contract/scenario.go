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

package contract

import (
	"encoding/json"
	"time"
)

// A scenario's workload runs inside each of its simulators: the server
// POSTs a ScenarioRun (everything resolved: ConfigMaps read, NodePools
// named) to PathScenario on every simulator with one start time, so that
// variants run side by side, and GETs their ScenarioReports.
const (
	// PathScenario: POST a ScenarioRun (202 Accepted; 409 while another
	// runs), GET the ScenarioReport (404 before any run), DELETE stops the
	// run.
	PathScenario = "/api/v1/scenario"
	// PathScenarioPlacements answers the placements at the end of the run
	// (ScenarioPlacements), for the comparison of variants.
	PathScenarioPlacements = "/api/v1/scenario/placements"
)

// MaxScenarioRun bounds the body of a ScenarioRun: a trace of 10,000 Pod
// arrivals and departures with their objects fits well within.
const MaxScenarioRun = 64 << 20

// LateAfter is how far after its scaled time an event counts as late.
const LateAfter = 100 * time.Millisecond

// ScenarioRun is the workload one simulator runs.
type ScenarioRun struct {
	// RunID names the run (the scenario's UID); the report and placements
	// echo it, so that the server tells its run from an older one.
	RunID string `json:"runID"`
	// StartTime is when offset zero is; the runner waits for it.
	StartTime time.Time `json:"startTime"`
	// DurationMilliseconds is how long the run lasts, in scaled time (what
	// the simulator lives through): the workload's duration ÷ Speed.
	DurationMilliseconds int64 `json:"durationMilliseconds"`
	// Steps are the timeline, in order, at offsets already scaled.
	Steps []ScenarioRunStep `json:"steps,omitempty"`
	// Trace is a recorded trace to replay, oldest first; each event's
	// offset is its time minus the first event's, divided by Speed.
	Trace []TraceEvent `json:"trace,omitempty"`
	// Speed divides the trace's time; 1 when zero.
	Speed int32 `json:"speed,omitempty"`
	// SampleMilliseconds is the interval between samples of the
	// allocation, in scaled time; 1000 when zero.
	SampleMilliseconds int64 `json:"sampleMilliseconds,omitempty"`
}

// ScenarioRunStep is one step: exactly one of Create, Delete, Scale, Wait.
type ScenarioRunStep struct {
	// AtMilliseconds is the offset from StartTime.
	AtMilliseconds int64 `json:"atMilliseconds"`
	// Create and Delete are objects (JSON), created or deleted by kind,
	// namespace and name.
	Create []json.RawMessage `json:"create,omitempty"`
	Delete []json.RawMessage `json:"delete,omitempty"`
	Scale  *ScenarioRunScale `json:"scale,omitempty"`
	Wait   *ScenarioRunWait  `json:"wait,omitempty"`
}

// Kinds a ScenarioRunScale scales.
const (
	ScaleKindNodePool    = "NodePool"
	ScaleKindDeployment  = "Deployment"
	ScaleKindReplicaSet  = "ReplicaSet"
	ScaleKindStatefulSet = "StatefulSet"
)

// ScenarioRunScale sets an object's replicas. A NodePool lives on the host,
// out of the runner's reach: the runner says in its report that it waits
// for it (ScenarioReport.Waiting), the server scales it, and the runner
// goes on once the Nodes matching NodeSelector number Replicas.
type ScenarioRunScale struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Replicas  int32  `json:"replicas"`
	// NodeSelector selects the NodePool's Nodes inside the simulator.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
}

// What a ScenarioRunWait waits for.
const (
	WaitForPodsSettled = "PodsSettled"
	WaitForNodesReady  = "NodesReady"
)

// ScenarioRunWait waits for a condition inside the simulator.
type ScenarioRunWait struct {
	For                 string `json:"for"`
	TimeoutMilliseconds int64  `json:"timeoutMilliseconds"`
}

// Phases of a run.
const (
	ScenarioRunWaiting   = "Waiting"
	ScenarioRunRunning   = "Running"
	ScenarioRunSucceeded = "Succeeded"
	ScenarioRunFailed    = "Failed"
)

// ScenarioReport is how a run stands, and what the scheduler did.
type ScenarioReport struct {
	// Phase: Waiting (for StartTime), Running, Succeeded or Failed.
	Phase string `json:"phase"`
	// Message says what failed, or which steps timed out.
	Message string `json:"message,omitempty"`
	// ElapsedMilliseconds is the scaled time run so far.
	ElapsedMilliseconds int64 `json:"elapsedMilliseconds"`
	// Waiting is the NodePool scale step waiting for the server.
	Waiting *ScenarioRunScale `json:"waiting,omitempty"`
	// RunID is the run's ScenarioRun.RunID.
	RunID string `json:"runID"`
	// Generation counts the runs this simulator has had.
	Generation int64 `json:"generation"`

	PodsScheduled      int64 `json:"podsScheduled"`
	PodsUnschedulable  int64 `json:"podsUnschedulable"`
	PodsPreempted      int64 `json:"podsPreempted"`
	SchedulingAttempts int64 `json:"schedulingAttempts"`
	// BindLatency from a Pod's creation to its binding, as the runner saw
	// them.
	BindP50Milliseconds int64 `json:"bindP50Milliseconds"`
	BindP99Milliseconds int64 `json:"bindP99Milliseconds"`
	// NodesUsed is the most Nodes that held a Pod at once.
	NodesUsed int32 `json:"nodesUsed"`
	// CPU and memory requested ÷ allocatable on the Nodes holding Pods,
	// over the samples.
	CPUMeanPercent    int32 `json:"cpuMeanPercent"`
	CPUP90Percent     int32 `json:"cpuP90Percent"`
	MemoryMeanPercent int32 `json:"memoryMeanPercent"`
	MemoryP90Percent  int32 `json:"memoryP90Percent"`
	// LargestFit is the largest CPU and memory request (quantities, as
	// strings) that one Node could still hold at the end.
	LargestFit map[string]string `json:"largestFit,omitempty"`
	// Rejections counts, by plugin, the Nodes it filtered out in attempts
	// that found no Node.
	Rejections map[string]int64 `json:"rejections,omitempty"`
	// Lag of the steps and events against their scaled time.
	LagP99Milliseconds int64 `json:"lagP99Milliseconds"`
	LagMaxMilliseconds int64 `json:"lagMaxMilliseconds"`
	Late               int64 `json:"late"`
	// EventsApplied counts the trace's events applied so far, EventsFailed
	// those whose write failed (Message tells the first); the run goes on
	// past a failed event.
	EventsApplied int64 `json:"eventsApplied,omitempty"`
	EventsFailed  int64 `json:"eventsFailed,omitempty"`
	// Samples are taken every SampleMilliseconds of the run.
	Samples []ScenarioSample `json:"samples,omitempty"`
}

// ScenarioSample is the simulator's state at one moment of a run.
type ScenarioSample struct {
	ElapsedMilliseconds int64 `json:"elapsedMilliseconds"`
	PodsPending         int32 `json:"podsPending"`
	PodsBound           int32 `json:"podsBound"`
	NodesUsed           int32 `json:"nodesUsed"`
	CPUPercent          int32 `json:"cpuPercent"`
	MemoryPercent       int32 `json:"memoryPercent"`
}

// ScenarioPlacements says where the Pods bound at the end of a run are, by
// group: the replicas of one controller are interchangeable, and their names
// differ from run to run (a ReplicaSet's random suffixes), so they are
// compared as a group. A Pod with a controller and a generateName is in the
// group NAMESPACE/GENERATENAME* (a ReplicaSet's names are the same in every
// run); any other Pod is alone in NAMESPACE/NAME.
type ScenarioPlacements struct {
	RunID      string `json:"runID"`
	Generation int64  `json:"generation"`
	// Groups counts, for each group, its bound Pods by Node.
	Groups map[string]map[string]int32 `json:"groups"`
}

// PlacementGroup is the group of a Pod in ScenarioPlacements.
func PlacementGroup(namespace, name, generateName string, controlled bool) string {
	if controlled && generateName != "" {
		return namespace + "/" + generateName + "*"
	}
	return namespace + "/" + name
}
