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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
)

// TestObservedStatus: the Events read back the phase and Pod that
// touchStatus recorded, from the one format backing.Digest writes.
func TestObservedStatus(t *testing.T) {
	st := sim.SimulatorStatus{Phase: sim.SimulatorAvailable, PodName: "sim-a-g2", ObservedGeneration: 2,
		Conditions: []metav1.Condition{{Type: "Available", Reason: "PodReady"}}}
	s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnotationObservedStatus: backing.Digest(st)}}}
	if got, want := observedStatus(s), (backing.Observed{Phase: sim.SimulatorAvailable, Pod: "sim-a-g2"}); got != want {
		t.Errorf("observedStatus(%q) = %+v, want %+v", backing.Digest(st), got, want)
	}
	if got := observedStatus(&v1alpha1.Simulator{}); got != (backing.Observed{}) {
		t.Errorf("observedStatus of a simulator never seen = %+v, want none", got)
	}
}
