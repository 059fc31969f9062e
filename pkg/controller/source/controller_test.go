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

package source

import (
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// TestWorthWriting: a report is written when anything but its clock
// changed, or when its sync time ran ahead by syncTimeRefresh.
func TestWorthWriting(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := t0.Add(d); return &v }
	base := func() *contract.SourceStatus {
		return &contract.SourceStatus{Phase: contract.SourceSyncing, Objects: map[string]int64{"pods": 10}, LastSyncTime: at(0), LagMilliseconds: 40}
	}
	for _, tc := range []struct {
		name   string
		change func(*contract.SourceStatus)
		want   bool
	}{
		{"nothing", func(*contract.SourceStatus) {}, false},
		{"lag only", func(s *contract.SourceStatus) { s.LagMilliseconds = 900 }, false},
		{"sync time a little later", func(s *contract.SourceStatus) { s.LastSyncTime = at(syncTimeRefresh - time.Second) }, false},
		{"sync time much later", func(s *contract.SourceStatus) { s.LastSyncTime = at(syncTimeRefresh) }, true},
		{"phase", func(s *contract.SourceStatus) { s.Phase = contract.SourceFailed }, true},
		{"message", func(s *contract.SourceStatus) { s.Message = "Unauthorized" }, true},
		{"count", func(s *contract.SourceStatus) { s.Objects["pods"] = 11 }, true},
		{"kind", func(s *contract.SourceStatus) { s.Objects["nodes"] = 1 }, true},
		{"shadow", func(s *contract.SourceStatus) { s.Shadow.Other = 1 }, true},
		{"first sync time", func(s *contract.SourceStatus) { s.LastSyncTime = nil }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			report := base()
			tc.change(report)
			if got := worthWriting(base(), report); got != tc.want {
				t.Errorf("worthWriting = %v, want %v", got, tc.want)
			}
		})
	}
	if !worthWriting(nil, base()) {
		t.Error("a first report is not written")
	}
}
