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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
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
		func(s *sim.NodePoolSpec, c randfill.Continue) {
			c.FillNoCustom(s)
			if s.Replicas == nil {
				r := int32(c.Int31())
				s.Replicas = &r
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
