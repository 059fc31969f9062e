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
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
)

// TestPodCheck: what the host answers to the dry-run of a simulator's Pod
// becomes the simulator's answer. A Pod of that name already there passed
// validation and admission: no error (the simulator's own create then says
// AlreadyExists), never a 500.
func TestPodCheck(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	for _, tc := range []struct {
		name string
		host error
		want func(error) bool
	}{
		{"accepted", nil, func(err error) bool { return err == nil }},
		{"its name taken", apierrors.NewAlreadyExists(corev1.Resource("pods"), "sim-x-g1"), func(err error) bool { return err == nil }},
		{"refused by admission", apierrors.NewForbidden(corev1.Resource("pods"), "sim-x-g1", errors.New("quota")), apierrors.IsForbidden},
		{"host trouble", apierrors.NewServiceUnavailable("down"), apierrors.IsInternalError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			client.PrependReactor("create", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, &corev1.Pod{}, tc.host
			})
			err := podCheck{scheme: scheme, pods: client.CoreV1()}.check(t.Context(), &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "x"}})
			if !tc.want(err) {
				t.Errorf("host answered %v: got %v", tc.host, err)
			}
		})
	}
}
