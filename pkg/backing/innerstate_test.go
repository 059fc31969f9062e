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

package backing

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// TestInnerStatePreserved: the InnerStatePreserved condition is True until
// the reconciler records a reset, then False with the reset's reason,
// message and time.
func TestInnerStatePreserved(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC))
	at := metav1.NewTime(time.Date(2026, 12, 3, 11, 0, 0, 0, time.UTC))
	reset := InnerStateReset{Time: at, Reason: "PodReplaced", Message: "Pod sim-example-g2 replaced sim-example-g1: the inner cluster started empty"}
	for _, tc := range []struct {
		name       string
		annotation string
		want       metav1.Condition
	}{
		{name: "never reset", want: metav1.Condition{Status: metav1.ConditionTrue, Reason: "Preserved", LastTransitionTime: created}},
		{name: "unparsable", annotation: "{", want: metav1.Condition{Status: metav1.ConditionTrue, Reason: "Preserved", LastTransitionTime: created}},
		{name: "reset", annotation: reset.String(), want: metav1.Condition{Status: metav1.ConditionFalse, Reason: "PodReplaced", LastTransitionTime: at, Message: reset.Message}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "ns", CreationTimestamp: created}}
			if tc.annotation != "" {
				s.Annotations = map[string]string{sim.AnnotationInnerStateReset: tc.annotation}
			}
			got := meta.FindStatusCondition(Status(s, nil, nil).Conditions, sim.SimulatorConditionInnerStatePreserved)
			if got == nil {
				t.Fatal("no InnerStatePreserved condition")
			}
			want := tc.want
			want.Type = sim.SimulatorConditionInnerStatePreserved
			if want.Message == "" {
				want.Message = got.Message
			}
			if diff := cmp.Diff(want, *got); diff != "" {
				t.Errorf("condition (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEtcdData: a Pod's inner objects outlive it on an etcd data claim or in
// an external etcd (its URL and the simulator's prefix), not in an emptyDir.
func TestEtcdData(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.SimulatorSpec)
		want   string
	}{
		{name: "emptyDir", mutate: func(*v1alpha1.SimulatorSpec) {}},
		{name: "claim", mutate: func(s *v1alpha1.SimulatorSpec) { s.EtcdPersistentVolumeClaimName = "etcd-data" }, want: "claim etcd-data"},
		{name: "external etcd", mutate: func(s *v1alpha1.SimulatorSpec) { s.EtcdURL = "http://etcd.example:2379" },
			want: "etcd http://etcd.example:2379/simulators/team-a/example/u1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := simulator()
			tc.mutate(&s.Spec)
			pod, err := Pod(s, Local(s))
			if err != nil {
				t.Fatal(err)
			}
			if got := EtcdData(pod); got != tc.want {
				t.Errorf("EtcdData = %q, want %q", got, tc.want)
			}
		})
	}
}
