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

package v1alpha1_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/version"
)

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	install.Install(s)
	return s
}

func TestSimulatorDefaults(t *testing.T) {
	scheme := newScheme()
	cases := []struct {
		name string
		in   v1alpha1.SimulatorSpec
		want v1alpha1.SimulatorSpec
	}{{
		name: "empty spec gets KEP-159 defaults and the build's image",
		in:   v1alpha1.SimulatorSpec{},
		want: v1alpha1.SimulatorSpec{KubeAPIServerPort: 3131, SimulatorServerPort: 1212, Image: version.SimulatorImage()},
	}, {
		name: "set fields are kept",
		in:   v1alpha1.SimulatorSpec{KubeAPIServerPort: 6443, SimulatorServerPort: 8080, Image: "example.com/sim:v2", EtcdURL: "http://etcd:2379"},
		want: v1alpha1.SimulatorSpec{KubeAPIServerPort: 6443, SimulatorServerPort: 8080, Image: "example.com/sim:v2", EtcdURL: "http://etcd:2379"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := &v1alpha1.Simulator{Spec: tc.in}
			scheme.Default(obj)
			if diff := cmp.Diff(tc.want, obj.Spec); diff != "" {
				t.Errorf("defaulted spec (-want +got):\n%s", diff)
			}
		})
	}
	if got := version.SimulatorImage(); got != "sim.x-k8s.io/simulator:"+version.Version {
		t.Errorf("SimulatorImage() = %q, want the build's version as tag", got)
	}
}

func TestNodePoolDefaults(t *testing.T) {
	scheme := newScheme()
	small := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}
	cases := []struct {
		name string
		in   v1alpha1.NodePoolSpec
		want v1alpha1.NodePoolSpec
	}{{
		name: "empty spec: one Node of the default capacity, allocatable = capacity",
		in:   v1alpha1.NodePoolSpec{SimulatorName: "s"},
		want: v1alpha1.NodePoolSpec{SimulatorName: "s", Replicas: ptr.To[int32](1), Template: v1alpha1.NodeTemplate{
			Status: v1alpha1.NodeTemplateStatus{Capacity: v1alpha1.DefaultNodeCapacity(), Allocatable: v1alpha1.DefaultNodeCapacity()},
		}},
	}, {
		name: "zero replicas stay zero; allocatable follows a given capacity",
		in: v1alpha1.NodePoolSpec{SimulatorName: "s", Replicas: ptr.To[int32](0), Template: v1alpha1.NodeTemplate{
			Status: v1alpha1.NodeTemplateStatus{Capacity: small},
		}},
		want: v1alpha1.NodePoolSpec{SimulatorName: "s", Replicas: ptr.To[int32](0), Template: v1alpha1.NodeTemplate{
			Status: v1alpha1.NodeTemplateStatus{Capacity: small, Allocatable: small},
		}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := &v1alpha1.NodePool{Spec: tc.in}
			scheme.Default(obj)
			if diff := cmp.Diff(tc.want, obj.Spec); diff != "" {
				t.Errorf("defaulted spec (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScenarioDefaults(t *testing.T) {
	scheme := newScheme()
	minutes := func(m int) *metav1.Duration { return &metav1.Duration{Duration: time.Duration(m) * time.Minute} }
	cases := []struct {
		name string
		in   v1alpha1.ScenarioSpec
		// want is compared on the scenario's own fields; spec.simulator
		// and the templates get the defaults tested above.
		want v1alpha1.ScenarioSpec
	}{{
		name: "variants: the noise floor; no workload: one minute",
		in:   v1alpha1.ScenarioSpec{Variants: []v1alpha1.ScenarioVariant{{Name: "a"}}},
		want: v1alpha1.ScenarioSpec{Variants: []v1alpha1.ScenarioVariant{{Name: "a"}}, NoiseFloor: ptr.To(true), Duration: minutes(1)},
	}, {
		name: "simulators: no noise floor; a set noise floor and duration are kept",
		in:   v1alpha1.ScenarioSpec{Simulators: []string{"s"}, NoiseFloor: ptr.To(false), Duration: minutes(7)},
		want: v1alpha1.ScenarioSpec{Simulators: []string{"s"}, NoiseFloor: ptr.To(false), Duration: minutes(7)},
	}, {
		name: "timeline: a minute past the last step; a wait times out after a minute; a pool has one Node",
		in: v1alpha1.ScenarioSpec{
			Simulators: []string{"s"},
			NodePools:  []v1alpha1.ScenarioNodePool{{Name: "p"}},
			Timeline: []v1alpha1.ScenarioStep{
				{At: *minutes(0), Wait: &v1alpha1.ScenarioWait{For: v1alpha1.WaitNodesReady}},
				{At: *minutes(3), Scale: &v1alpha1.ScenarioScale{Kind: v1alpha1.ScaleNodePool, Name: "p", Replicas: 2}},
			},
		},
		want: v1alpha1.ScenarioSpec{
			Simulators: []string{"s"},
			NodePools:  []v1alpha1.ScenarioNodePool{{Name: "p", Replicas: ptr.To[int32](1)}},
			Timeline: []v1alpha1.ScenarioStep{
				{At: *minutes(0), Wait: &v1alpha1.ScenarioWait{For: v1alpha1.WaitNodesReady, Timeout: minutes(1)}},
				{At: *minutes(3), Scale: &v1alpha1.ScenarioScale{Kind: v1alpha1.ScaleNodePool, Name: "p", Replicas: 2}},
			},
			Duration: minutes(4),
		},
	}, {
		name: "trace: key trace, speed 1, duration left to the trace",
		in:   v1alpha1.ScenarioSpec{Simulators: []string{"s"}, Trace: &v1alpha1.ScenarioTrace{ConfigMapName: "cm"}},
		want: v1alpha1.ScenarioSpec{Simulators: []string{"s"}, Trace: &v1alpha1.ScenarioTrace{ConfigMapName: "cm", Key: "trace", Speed: 1}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := &v1alpha1.Scenario{Spec: tc.in}
			scheme.Default(obj)
			got := obj.Spec
			got.Simulator = v1alpha1.SimulatorSpec{}
			for i := range got.NodePools {
				got.NodePools[i].Template = v1alpha1.NodeTemplate{}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("defaulted spec (-want +got):\n%s", diff)
			}
			if obj.Spec.Simulator.Image != version.SimulatorImage() {
				t.Errorf("spec.simulator.image = %q, want the simulator's default", obj.Spec.Simulator.Image)
			}
		})
	}
}
