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
	"encoding/json"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// SourceStatusOf reads the source report recorded in a simulator's
// annotations (sim.AnnotationSourceStatus); nil when there is none, or
// none that parses.
func SourceStatusOf(annotations map[string]string) *contract.SourceStatus {
	value, ok := annotations[sim.AnnotationSourceStatus]
	if !ok {
		return nil
	}
	report := &contract.SourceStatus{}
	if err := json.Unmarshal([]byte(value), report); err != nil {
		return nil
	}
	return report
}

// sourceStatus is status.source: the simulator's last report, or nil when
// it has no source or has not reported yet.
func sourceStatus(s *sim.Simulator) *sim.SimulatorSourceStatus {
	if s.Spec.Source == nil {
		return nil
	}
	report := SourceStatusOf(s.Annotations)
	if report == nil {
		return nil
	}
	out := &sim.SimulatorSourceStatus{
		Phase:           sim.SourcePhase(report.Phase),
		Objects:         maps.Clone(report.Objects),
		LagMilliseconds: report.LagMilliseconds,
		Message:         report.Message,
		Skipped:         slices.Clone(report.Skipped),
		Shadow: sim.ShadowSchedulingStatus{
			Same: report.Shadow.Same, Other: report.Shadow.Other, Unschedulable: report.Shadow.Unschedulable,
		},
	}
	if report.LastSyncTime != nil {
		t := metav1.NewTime(*report.LastSyncTime)
		out.LastSyncTime = &t
	}
	return out
}
