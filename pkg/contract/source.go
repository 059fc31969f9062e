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
	"fmt"
	"time"
)

// A source is a real cluster the simulator mirrors (spec.source): the
// server mounts the Secret the user named and says, in EnvSource, what to
// read; the simulator reads the source with those credentials alone, never
// with the server's, and reports on PathSource.
const (
	// EnvSource is the source's settings, a Source as JSON. Absent means
	// no source.
	EnvSource = "SIMULATOR_SOURCE"
	// SourceVolume holds the Secret of spec.source.secretName.
	SourceVolume = "source"
	SourceDir    = "/etc/simulator/source"
)

// Keys of the source's Secret: a kubeconfig, or a
// kubernetes.io/service-account-token Secret of the cluster that hosts the
// simulator (reached at KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT).
const (
	SourceKeyKubeconfig = "kubeconfig"
	SourceKeyToken      = "token"
	SourceKeyCACert     = "ca.crt"
)

// Modes of a source.
const (
	// SourceModeOnce imports the source once.
	SourceModeOnce = "Once"
	// SourceModeSync imports it, then follows its changes, and scheduling
	// in the shadow of the source's scheduler.
	SourceModeSync = "Sync"
)

// DefaultSourceQPS is the read rate on a source unless the user sets one.
const DefaultSourceQPS = 50

// Source is what the simulator reads of its source.
type Source struct {
	// Mode is SourceModeOnce or SourceModeSync.
	Mode string `json:"mode"`
	// Dir holds the Secret's keys (SourceKey*).
	Dir string `json:"dir"`
	// Namespaces limits the namespaced objects to these namespaces; empty
	// means all.
	Namespaces []string `json:"namespaces,omitempty"`
	// LabelSelector selects the namespaced objects (a selector in the
	// string form of kubectl's -l); empty means all.
	LabelSelector string `json:"labelSelector,omitempty"`
	// QPS is the read rate on the source, in requests a second.
	QPS int32 `json:"qps"`
	// Workloads also imports the workload controllers (Deployments,
	// ReplicaSets, StatefulSets, DaemonSets, Jobs), adopting the imported
	// Pods rather than making others.
	Workloads bool `json:"workloads,omitempty"`
}

// ParseSource reads EnvSource's value.
func ParseSource(value string) (*Source, error) {
	s := &Source{}
	if err := json.Unmarshal([]byte(value), s); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvSource, err)
	}
	switch s.Mode {
	case SourceModeOnce, SourceModeSync:
	default:
		return nil, fmt.Errorf("%s: mode %q: want %s or %s", EnvSource, s.Mode, SourceModeOnce, SourceModeSync)
	}
	if s.Dir == "" {
		return nil, fmt.Errorf("%s: no dir", EnvSource)
	}
	if s.QPS <= 0 {
		s.QPS = DefaultSourceQPS
	}
	return s, nil
}

// String is EnvSource's value.
func (s *Source) String() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Paths of the source on the simulator server.
const (
	// PathSource answers the source's SourceStatus.
	PathSource = "/api/v1/source"
	// PathSourceTrace answers the changes seen on the source, oldest
	// first, as JSON lines (TraceEvent).
	PathSourceTrace = "/api/v1/source/trace"
)

// Phases of a source.
const (
	SourceImporting = "Importing"
	SourceSynced    = "Synced"
	SourceSyncing   = "Syncing"
	SourceFailed    = "Failed"
)

// SourceStatus is how the simulator's mirror of its source stands.
type SourceStatus struct {
	// Phase is one of the Source* phases: Importing until the first copy is
	// whole, then Synced (Once) or Syncing (Sync), Failed while the source
	// cannot be read (Message says why, in the source's words).
	Phase string `json:"phase"`
	// Objects counts the objects mirrored, by resource (pods, nodes, ...).
	Objects map[string]int64 `json:"objects,omitempty"`
	// LastSyncTime is when the mirror last matched what the source had sent.
	LastSyncTime *time.Time `json:"lastSyncTime,omitempty"`
	// LagMilliseconds is how long the last change took from the source's
	// watch to the simulator.
	LagMilliseconds int64 `json:"lagMilliseconds,omitempty"`
	// Message is the last error, as the source gave it; or, when the
	// source forbids reading some kinds (403) and the rest is mirrored, the
	// kinds skipped and the source's words on the first.
	Message string `json:"message,omitempty"`
	// Skipped are the readers the source forbids (403), skipped: a
	// resource (nodes), a resource in a namespace (pods/team), or a group
	// version (resource.k8s.io/v1) whose discovery is forbidden. The phase
	// is not Failed for them.
	Skipped []string `json:"skipped,omitempty"`
	// Shadow counts, for the Pods the source's scheduler bound after the
	// simulator's scheduler had decided, how the two decisions compare.
	Shadow ShadowCounts `json:"shadow"`
}

// ShadowCounts compares the source's bindings with the simulator's own
// decisions.
type ShadowCounts struct {
	// Same node.
	Same int64 `json:"same"`
	// Another node.
	Other int64 `json:"other"`
	// The simulator's scheduler found no node.
	Unschedulable int64 `json:"unschedulable"`
}

// Annotations the simulator puts on a Pod that the source's scheduler bound
// in the shadow of the simulator's: the simulator's own choice beside the
// source's binding, which the Pod now has.
const (
	// AnnotationShadowNode is the node the simulator's scheduler chose;
	// empty when it found none.
	AnnotationShadowNode = "sim.x-k8s.io/shadow-node"
	// AnnotationShadowAgreement is Same, Other or Unschedulable.
	AnnotationShadowAgreement = "sim.x-k8s.io/shadow-agreement"
)

// Values of AnnotationShadowAgreement.
const (
	ShadowSame          = "Same"
	ShadowOther         = "Other"
	ShadowUnschedulable = "Unschedulable"
)

// TraceEvent is one change seen on the source.
type TraceEvent struct {
	// Time is when the simulator saw it.
	Time time.Time `json:"time"`
	// Type is ADDED, MODIFIED or DELETED.
	Type string `json:"type"`
	// Resource is the plural resource (pods, nodes, ...).
	Resource string `json:"resource"`
	// Namespace and Name of the object.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Object is the object as the simulator mirrors it (JSON), for ADDED and
	// MODIFIED.
	Object json.RawMessage `json:"object,omitempty"`
}
