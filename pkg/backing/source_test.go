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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// TestSourceStatus: status.source is the simulator's report recorded on
// the record, for a simulator that has a source; nothing otherwise, nor
// for a report that does not parse.
func TestSourceStatus(t *testing.T) {
	synced := metav1.NewTime(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	report := `{"phase":"Syncing","objects":{"pods":3,"nodes":2},"lastSyncTime":"2026-12-03T12:00:00Z","lagMilliseconds":12,` +
		`"message":"forbidden: nodes","skipped":["nodes"],"shadow":{"same":4,"other":1,"unschedulable":2}}`
	for _, tc := range []struct {
		name       string
		source     bool
		annotation string
		want       *sim.SimulatorSourceStatus
	}{
		{name: "no source", annotation: report},
		{name: "not reported yet", source: true},
		{name: "unparsable", source: true, annotation: "{"},
		{name: "reported", source: true, annotation: report, want: &sim.SimulatorSourceStatus{
			Phase: sim.SourceSyncing, Objects: map[string]int64{"pods": 3, "nodes": 2}, LastSyncTime: &synced, LagMilliseconds: 12,
			Message: "forbidden: nodes", Skipped: []string{"nodes"},
			Shadow: sim.ShadowSchedulingStatus{Same: 4, Other: 1, Unschedulable: 2},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "team-a"}}
			if tc.source {
				s.Spec.Source = &sim.SimulatorSource{SecretName: "prod", Mode: sim.SourceModeSync}
			}
			if tc.annotation != "" {
				s.Annotations = map[string]string{sim.AnnotationSourceStatus: tc.annotation}
			}
			if diff := cmp.Diff(tc.want, Status(s, nil, nil).Source); diff != "" {
				t.Errorf("status.source (-want +got):\n%s", diff)
			}
		})
	}
}
