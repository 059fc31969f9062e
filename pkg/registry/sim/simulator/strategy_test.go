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

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

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

// TestServerAnnotations: the annotations status is computed from are the
// server's to write; a user's create or update of them is dropped, an
// update that leaves them alone keeps them.
func TestServerAnnotations(t *testing.T) {
	const report = `{"phase":"Synced"}`
	withAnnotations := func(a map[string]string) *sim.Simulator {
		s := &sim.Simulator{}
		s.Name, s.Namespace, s.Annotations = "s", "ns", a
		return s
	}
	asUser := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "alice"})
	asServer := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: user.APIServerUser})

	created := withAnnotations(map[string]string{sim.AnnotationSourceStatus: report, "team": "a"})
	(strategy{}).PrepareForCreate(asUser, created)
	if diff := cmp.Diff(map[string]string{"team": "a"}, created.Annotations); diff != "" {
		t.Errorf("create (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		old, new map[string]string
		want     map[string]string
	}{
		{"a user sets one", asUser, nil, map[string]string{sim.AnnotationSourceStatus: report}, nil},
		{"a user changes one", asUser,
			map[string]string{sim.AnnotationNotOwned: "x"}, map[string]string{sim.AnnotationNotOwned: "y", "team": "a"},
			map[string]string{sim.AnnotationNotOwned: "x", "team": "a"}},
		{"a user removes one", asUser, map[string]string{sim.AnnotationObservedStatus: "d"}, nil, map[string]string{sim.AnnotationObservedStatus: "d"}},
		{"the server sets one", asServer, nil, map[string]string{sim.AnnotationSourceStatus: report}, map[string]string{sim.AnnotationSourceStatus: report}},
		{"the server removes one", asServer, map[string]string{sim.AnnotationNotOwned: "x"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := withAnnotations(tc.new)
			(strategy{}).PrepareForUpdate(tc.ctx, s, withAnnotations(tc.old))
			if diff := cmp.Diff(tc.want, s.Annotations, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}
