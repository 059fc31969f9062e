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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"sigs.k8s.io/simulator-apiserver/pkg/version"
)

// Defaults of a Simulator (KEP-159).
const (
	DefaultKubeAPIServerPort   = contract.DefaultKubeAPIPort
	DefaultSimulatorServerPort = contract.DefaultPort
)

// DefaultNodeCapacity is the capacity of a generated Node when the template names none:
// a large machine, so that pods are limited by what the test asks, not by the default.
func DefaultNodeCapacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
}

func addDefaultingFuncs(scheme *runtime.Scheme) error {
	return RegisterDefaults(scheme)
}

// SetDefaults_SimulatorSpec fills in the KEP-159 defaults.
func SetDefaults_SimulatorSpec(obj *SimulatorSpec) {
	if obj.KubeAPIServerPort == 0 {
		obj.KubeAPIServerPort = DefaultKubeAPIServerPort
	}
	if obj.SimulatorServerPort == 0 {
		obj.SimulatorServerPort = DefaultSimulatorServerPort
	}
	if obj.Image == "" {
		obj.Image = version.SimulatorImage()
	}
}

// SetDefaults_SimulatorSource reads a source once, at the default rate.
func SetDefaults_SimulatorSource(obj *SimulatorSource) {
	if obj.Mode == "" {
		obj.Mode = SourceModeOnce
	}
	if obj.QPS == 0 {
		obj.QPS = contract.DefaultSourceQPS
	}
}

// SetDefaults_SimulatorHosting reaches a hosted simulator through its
// hosting cluster's pods/proxy, which needs nothing of its network.
func SetDefaults_SimulatorHosting(obj *SimulatorHosting) {
	if obj.Route == "" {
		obj.Route = SimulatorHostingRoutePodsProxy
	}
}

// SetDefaults_NodePoolSpec defaults replicas to 1, like a Deployment.
func SetDefaults_NodePoolSpec(obj *NodePoolSpec) {
	if obj.Replicas == nil {
		obj.Replicas = ptr.To[int32](1)
	}
}

// SetDefaults_NodeTemplateStatus gives Nodes a capacity, and allocatable equal to it.
func SetDefaults_NodeTemplateStatus(obj *NodeTemplateStatus) {
	if len(obj.Capacity) == 0 {
		obj.Capacity = DefaultNodeCapacity()
	}
	if len(obj.Allocatable) == 0 {
		obj.Allocatable = obj.Capacity.DeepCopy()
	}
}

// Defaults of a Scenario.
const (
	// DefaultScenarioTail is how long a scenario runs past its last step
	// when spec.duration is unset.
	DefaultScenarioTail = time.Minute
	// DefaultWaitTimeout bounds a wait step that sets no timeout.
	DefaultWaitTimeout = time.Minute
	// DefaultTraceKey is the ConfigMap key of a trace.
	DefaultTraceKey = "trace"
)

// SetDefaults_ScenarioSpec runs the noise floor with variants, and lets a
// timeline run one minute past its last step. A trace's duration is left
// unset: only the trace, read when the scenario starts, knows its length.
func SetDefaults_ScenarioSpec(obj *ScenarioSpec) {
	if obj.NoiseFloor == nil && len(obj.Variants) > 0 {
		obj.NoiseFloor = ptr.To(true)
	}
	if obj.Duration == nil && obj.Trace == nil {
		var last time.Duration
		if n := len(obj.Timeline); n > 0 {
			last = obj.Timeline[n-1].At.Duration
		}
		obj.Duration = &metav1.Duration{Duration: last + DefaultScenarioTail}
	}
}

// SetDefaults_ScenarioNodePool defaults replicas to 1, as a NodePool's.
func SetDefaults_ScenarioNodePool(obj *ScenarioNodePool) {
	if obj.Replicas == nil {
		obj.Replicas = ptr.To[int32](1)
	}
}

// SetDefaults_ScenarioWait bounds a wait by a minute.
func SetDefaults_ScenarioWait(obj *ScenarioWait) {
	if obj.Timeout == nil {
		obj.Timeout = &metav1.Duration{Duration: DefaultWaitTimeout}
	}
}

// SetDefaults_ScenarioTrace reads the key "trace" at the trace's own pace.
func SetDefaults_ScenarioTrace(obj *ScenarioTrace) {
	if obj.Key == "" {
		obj.Key = DefaultTraceKey
	}
	if obj.Speed == 0 {
		obj.Speed = 1
	}
}
