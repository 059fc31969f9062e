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

package simulator

import (
	"context"
	"testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

func TestValidateUpdatePodTemplate(t *testing.T) {
	withArgs := func(args ...string) *sim.Simulator {
		s := &sim.Simulator{Spec: sim.SimulatorSpec{KubeAPIServerPort: 6443, SimulatorServerPort: 1212, Image: "simulator"}}
		s.Name, s.Namespace, s.ResourceVersion = "s", "ns", "1"
		s.Spec.PodTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: contract.SimulatorContainer, Args: args}}}}
		return s
	}
	for _, tc := range []struct {
		name     string
		old, new *sim.Simulator
		wantErrs int
	}{
		{"a stored forbidden template left alone", withArgs("--etcd-prefix=/other"), withArgs("--etcd-prefix=/other"), 0},
		{"a forbidden template set", withArgs(), withArgs("--etcd-prefix=/other"), 1},
		{"a forbidden template changed", withArgs("--etcd-prefix=/other"), withArgs("--etcd-prefix=/another"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.new.Finalizers = []string{"changed"}
			if errs := (strategy{}).ValidateUpdate(context.Background(), tc.new, tc.old); len(errs) != tc.wantErrs {
				t.Errorf("got %d errors, want %d: %v", len(errs), tc.wantErrs, errs)
			}
		})
	}
}
