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

// Package fuzzer holds the fuzz functions of the sim.x-k8s.io API for
// round-trip tests: they keep fuzzed objects within what defaulting leaves alone.
package fuzzer

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// Funcs returns the fuzzer functions of the sim API group.
var Funcs = func(codecs runtimeserializer.CodecFactory) []interface{} {
	return []interface{}{
		func(s *sim.SimulatorSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			// Zero values are defaulted on decode and would not round-trip.
			if s.KubeAPIServerPort == 0 {
				s.KubeAPIServerPort = 3131
			}
			if s.SimulatorServerPort == 0 {
				s.SimulatorServerPort = 1212
			}
			if s.Image == "" {
				s.Image = "example.com/simulator:v1"
			}
			if s.PodTemplate != nil {
				// corev1's own round trip is kube's business and has quirks of its
				// own (null pointers in probes); fuzz the parts a user merges.
				t := &corev1.PodTemplateSpec{}
				c.Fill(&t.Labels)
				c.Fill(&t.Annotations)
				ctr := corev1.Container{Name: c.String(0), Image: c.String(0)}
				c.Fill(&ctr.Args)
				c.Fill(&ctr.Resources.Limits)
				t.Spec.Containers = []corev1.Container{ctr}
				s.PodTemplate = t
			}
		},
		func(s *sim.SimulatorSource, c randfill.Continue) {
			c.FillNoCustom(s)
			// Defaulted on decode, as in SimulatorSpec.
			if s.Mode == "" {
				s.Mode = sim.SourceModeOnce
			}
			if s.QPS == 0 {
				s.QPS = 50
			}
		},
		func(h *sim.SimulatorHosting, c randfill.Continue) {
			c.FillNoCustom(h)
			// Defaulted on decode.
			if h.Route == "" {
				h.Route = sim.SimulatorHostingRoutePodsProxy
			}
		},
		func(s *sim.NodePoolSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.Replicas == nil {
				r := int32(c.Int31())
				s.Replicas = &r
			}
		},
		func(s *sim.ScenarioSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			// Defaulted on decode (v1alpha1.SetDefaults_ScenarioSpec).
			if s.NoiseFloor == nil && len(s.Variants) > 0 {
				s.NoiseFloor = ptr.To(c.Bool())
			}
			if s.Duration == nil && s.Trace == nil {
				s.Duration = &metav1.Duration{Duration: time.Duration(c.Int63())}
			}
		},
		func(v *sim.ScenarioVariant, c randfill.Continue) {
			c.FillNoCustom(v)
			if v.SchedulerConfiguration != nil {
				v.SchedulerConfiguration = rawObject(c)
			}
		},
		func(o *sim.ScenarioObjects, c randfill.Continue) {
			c.FillNoCustom(o)
			for i := range o.Objects {
				o.Objects[i] = *rawObject(c)
			}
		},
		func(p *sim.ScenarioNodePool, c randfill.Continue) {
			c.FillNoCustom(p)
			if p.Replicas == nil {
				p.Replicas = ptr.To(c.Int31())
			}
		},
		func(w *sim.ScenarioWait, c randfill.Continue) {
			c.FillNoCustom(w)
			if w.Timeout == nil {
				w.Timeout = &metav1.Duration{Duration: time.Duration(c.Int63())}
			}
		},
		func(t *sim.ScenarioTrace, c randfill.Continue) {
			c.FillNoCustom(t)
			if t.Key == "" {
				t.Key = "trace"
			}
			if t.Speed == 0 {
				t.Speed = 1
			}
		},
		func(s *sim.NodeTemplateStatus, c randfill.Continue) {
			c.FillNoCustom(s)
			if len(s.Capacity) == 0 {
				s.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}
			}
			if len(s.Allocatable) == 0 {
				s.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}
			}
		},
	}
}

// rawObject is a small JSON object, as an object of a timeline or a
// scheduler configuration is: random bytes are not JSON, and JSON's key
// order or escapes would not survive YAML.
func rawObject(c randfill.Continue) *runtime.RawExtension {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 1+c.Intn(16))
	for i := range b {
		b[i] = letters[c.Intn(len(letters))]
	}
	return &runtime.RawExtension{Raw: []byte(`{"kind":"` + string(b) + `"}`)}
}
