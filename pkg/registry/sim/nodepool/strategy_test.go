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

package nodepool

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
)

// storedPool is a pool of generation 3 whose status the reconciler wrote
// for that generation, with the given Ready condition.
func storedPool(ready metav1.ConditionStatus, reason string) *sim.NodePool {
	return &sim.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Generation: 3, ResourceVersion: "7"},
		Spec:       sim.NodePoolSpec{SimulatorName: "sim", Replicas: ptr.To[int32](5)},
		Status: sim.NodePoolStatus{Replicas: 5, ReadyReplicas: 5, ObservedGeneration: 3, Conditions: []metav1.Condition{{
			Type: sim.NodePoolConditionReady, Status: ready, Reason: reason, ObservedGeneration: 3,
			LastTransitionTime: metav1.Now(),
		}}},
	}
}

// TestSpecUpdateLowersReady: a spec write that makes a new generation
// leaves no Ready=True of the older one in the stored status.
func TestSpecUpdateLowersReady(t *testing.T) {
	for _, tc := range []struct {
		name           string
		old            *sim.NodePool
		change         func(*sim.NodePool)
		wantGeneration int64
		wantStatus     metav1.ConditionStatus
		wantReason     string
	}{
		{
			name:   "scale of a Ready pool",
			old:    storedPool(metav1.ConditionTrue, "NodesReady"),
			change: func(np *sim.NodePool) { np.Spec.Replicas = ptr.To[int32](10) },
			// Counted for generation 3, which is no longer the spec.
			wantGeneration: 4, wantStatus: metav1.ConditionFalse, wantReason: sim.NodePoolReasonScaling,
		},
		{
			name:           "template change of a Ready pool",
			old:            storedPool(metav1.ConditionTrue, "NodesReady"),
			change:         func(np *sim.NodePool) { np.Spec.Template.Metadata.Labels = map[string]string{"zone": "a"} },
			wantGeneration: 4, wantStatus: metav1.ConditionFalse, wantReason: sim.NodePoolReasonScaling,
		},
		{
			name:           "metadata only: the same generation stays Ready",
			old:            storedPool(metav1.ConditionTrue, "NodesReady"),
			change:         func(np *sim.NodePool) { np.Labels = map[string]string{"team": "a"} },
			wantGeneration: 3, wantStatus: metav1.ConditionTrue, wantReason: "NodesReady",
		},
		{
			name:   "a pool already not Ready keeps its reason",
			old:    storedPool(metav1.ConditionFalse, "NodeNameTaken"),
			change: func(np *sim.NodePool) { np.Spec.Replicas = ptr.To[int32](10) },
			// Still true of the Nodes counted; the reconciler says more.
			wantGeneration: 4, wantStatus: metav1.ConditionFalse, wantReason: "NodeNameTaken",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStrategy(nil, validation.DefaultOptions())
			old := tc.old
			oldCond := *meta.FindStatusCondition(old.Status.Conditions, sim.NodePoolConditionReady)
			np := old.DeepCopy()
			np.Status = sim.NodePoolStatus{} // a client's spec write does not carry status
			tc.change(np)
			s.PrepareForUpdate(context.Background(), np, old)

			if np.Generation != tc.wantGeneration {
				t.Errorf("generation %d, want %d", np.Generation, tc.wantGeneration)
			}
			c := meta.FindStatusCondition(np.Status.Conditions, sim.NodePoolConditionReady)
			if c == nil || c.Status != tc.wantStatus || c.Reason != tc.wantReason {
				t.Fatalf("Ready %+v, want %s %s", c, tc.wantStatus, tc.wantReason)
			}
			if c.ObservedGeneration != 3 || np.Status.ObservedGeneration != 3 || np.Status.Replicas != 5 {
				t.Errorf("status %+v: want the counts and observedGeneration 3 they were made for", np.Status)
			}
			if c.Status == metav1.ConditionFalse && oldCond.Status == metav1.ConditionTrue &&
				(!strings.Contains(c.Message, "generation 4") || c.LastTransitionTime == oldCond.LastTransitionTime) {
				t.Errorf("Ready %+v: want a message naming generation 4 and a new transition time", c)
			}
			if got := *meta.FindStatusCondition(old.Status.Conditions, sim.NodePoolConditionReady); got != oldCond {
				t.Errorf("the stored object's condition changed: %+v", got)
			}
			if errs := s.ValidateUpdate(context.Background(), np, old); len(errs) > 0 {
				t.Errorf("the updated pool is invalid: %v", errs)
			}
		})
	}
}

// TestStatusUpdateRefusesReadyOfAnotherGeneration: a status write says
// Ready=True only for the pool's own generation.
func TestStatusUpdateRefusesReadyOfAnotherGeneration(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  func(*sim.NodePoolStatus)
		wantErr string
	}{
		{name: "Ready for the pool's generation", status: func(*sim.NodePoolStatus) {}},
		{
			name:    "Ready counted for an older generation",
			status:  func(st *sim.NodePoolStatus) { st.Conditions[0].ObservedGeneration = 2 },
			wantErr: "status.conditions[0].observedGeneration",
		},
		{
			name:    "Ready with an older status.observedGeneration",
			status:  func(st *sim.NodePoolStatus) { st.ObservedGeneration = 2 },
			wantErr: "status.observedGeneration",
		},
		{
			name:    "Ready without observedGeneration",
			status:  func(st *sim.NodePoolStatus) { st.Conditions[0].ObservedGeneration = 0 },
			wantErr: "status.conditions[0].observedGeneration",
		},
		{
			name: "not Ready for an older generation",
			status: func(st *sim.NodePoolStatus) {
				st.ObservedGeneration = 2
				st.Conditions[0].Status, st.Conditions[0].Reason, st.Conditions[0].ObservedGeneration = metav1.ConditionFalse, "Scaling", 2
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStatusStrategy(NewStrategy(nil, validation.DefaultOptions()))
			old := storedPool(metav1.ConditionFalse, "Scaling")
			np := storedPool(metav1.ConditionTrue, "NodesReady")
			tc.status(&np.Status)
			s.PrepareForUpdate(context.Background(), np, old)
			errs := s.ValidateUpdate(context.Background(), np, old)
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("refused: %v", errs)
			case tc.wantErr != "" && (len(errs) != 1 || errs[0].Field != tc.wantErr):
				t.Errorf("errors %v, want one at %s", errs, tc.wantErr)
			}
		})
	}
}
