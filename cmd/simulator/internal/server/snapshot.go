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

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/schedconfig"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/snapshot"
)

// maxSnapshot bounds an imported scenario (5,000 nodes and their pods
// take a few tens of MiB).
const maxSnapshot = 256 << 20

// Snapshotter reads and recreates the inner cluster's scenario.
type Snapshotter interface {
	Export(ctx context.Context) (*snapshot.Snapshot, error)
	Import(ctx context.Context, s *snapshot.Snapshot) (snapshot.Result, error)
}

func (s *server) export(w http.ResponseWriter, r *http.Request) {
	snap, err := s.cfg.Snapshotter.Export(r.Context())
	if err != nil {
		klog.FromContext(r.Context()).Error(err, "Export")
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	snap.SchedulerConfig = s.cfg.SchedulerConfig.Effective()
	writeJSON(w, http.StatusOK, snap)
}

// importSnapshot recreates the objects, then, when the scenario has one,
// applies its scheduler configuration (which restarts the scheduler).
func (s *server) importSnapshot(w http.ResponseWriter, r *http.Request) {
	var snap snapshot.Snapshot
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxSnapshot)).Decode(&snap); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("decoding the scenario: %w", err))
		return
	}
	if len(snap.SchedulerConfig) > 0 && string(snap.SchedulerConfig) != "null" {
		if _, err := s.cfg.SchedulerConfig.Update(r.Context(), snap.SchedulerConfig); err != nil {
			status := http.StatusInternalServerError
			var invalid *schedconfig.InvalidError
			if errors.As(err, &invalid) {
				status = http.StatusBadRequest
			}
			writeError(w, status, fmt.Errorf("schedulerConfig: %w", err))
			return
		}
	}
	res, err := s.cfg.Snapshotter.Import(r.Context(), &snap)
	if err != nil {
		klog.FromContext(r.Context()).Error(err, "Import")
		writeJSON(w, http.StatusInternalServerError, struct {
			Error string `json:"error"`
			snapshot.Result
		}{err.Error(), res})
		return
	}
	writeJSON(w, http.StatusOK, res)
}
