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
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/version"
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

// TestHostingNotEnabled: without --enable-hosting, creating a simulator
// with spec.hosting is refused as the store refuses it (system fields, then
// rest.BeforeCreate): a 422 Invalid whose cause is the field spec.hosting.
func TestHostingNotEnabled(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	ctx := genericapirequest.WithNamespace(context.Background(), "ns")
	hosted := func() *sim.Simulator {
		s := &sim.Simulator{Spec: sim.SimulatorSpec{KubeAPIServerPort: 3131, SimulatorServerPort: 1212, Image: version.SimulatorImage(),
			Hosting: &sim.SimulatorHosting{SecretName: "cluster-b", Namespace: "sims", Route: sim.SimulatorHostingRoutePodsProxy}}}
		s.Name, s.Namespace = "s", "ns"
		rest.FillObjectMetaSystemFields(s)
		return s
	}

	err := rest.BeforeCreate(NewStrategy(scheme, validation.DefaultOptions()), ctx, hosted())
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Code != http.StatusUnprocessableEntity || !apierrors.IsInvalid(err) {
		t.Fatalf("err = %v, want a 422 Invalid", err)
	}
	causes := status.Status().Details.Causes
	if len(causes) != 1 || causes[0].Field != "spec.hosting" || !strings.Contains(causes[0].Message, "hosting clusters are not enabled on this server") {
		t.Errorf("causes %+v, want one on spec.hosting saying hosting is not enabled", causes)
	}

	if err := rest.BeforeCreate(NewStrategy(scheme, validation.Options{MaxNodePoolReplicas: 1, Hosting: true}), ctx, hosted()); err != nil {
		t.Errorf("enabled: %v", err)
	}
}
