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
	"errors"
	"fmt"
	"io"
	"net/http"

	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/snapshot"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// Snapshotter exports the inner cluster's scenario.
type Snapshotter interface {
	// Export writes the scenario, with schedulerConfig, to w as it reads it.
	Export(ctx context.Context, schedulerConfig []byte, w io.Writer) error
}

// Importer imports scenarios in the background (snapshot.Importer).
type Importer interface {
	// Start stores the document body reads (nil: resumes the stored one)
	// and starts its import.
	Start(ctx context.Context, body io.Reader) (contract.ImportStatus, error)
	Status() contract.ImportStatus
}

// export streams the scenario. An error before the first bytes leave
// answers 500; after, the connection is cut, so that the client never
// takes a truncated document for a whole one.
func (s *server) export(w http.ResponseWriter, r *http.Request) {
	out := &lazyWriter{w: w}
	err := s.cfg.Snapshotter.Export(r.Context(), s.cfg.SchedulerConfig.Effective(), out)
	if err == nil {
		return
	}
	klog.FromContext(r.Context()).Error(err, "Export")
	if !out.started {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	panic(http.ErrAbortHandler)
}

// lazyWriter answers 200 with the first bytes written.
type lazyWriter struct {
	w       http.ResponseWriter
	started bool
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	if !l.started {
		l.started = true
		l.w.Header().Set("Content-Type", "application/json")
		l.w.WriteHeader(http.StatusOK)
	}
	return l.w.Write(p)
}

// importSnapshot stores the document and starts its import in the
// background (202 with its status), or, with ?resume=true and no body,
// imports the stored one again.
func (s *server) importSnapshot(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = http.MaxBytesReader(w, r.Body, s.cfg.MaxImportBytes)
	switch v := r.URL.Query().Get(contract.ImportResumeParam); v {
	case "", "false":
	case "true":
		body = nil
	default:
		writeError(w, http.StatusBadRequest, fmt.Errorf("%s=%q: want true or false", contract.ImportResumeParam, v))
		return
	}
	status, err := s.cfg.Importer.Start(r.Context(), body)
	var tooLarge *http.MaxBytesError
	var invalid *snapshot.InvalidError
	switch {
	case err == nil:
		writeJSON(w, http.StatusAccepted, status)
	case errors.Is(err, snapshot.ErrBusy):
		writeError(w, http.StatusConflict, err)
	case errors.Is(err, snapshot.ErrNothingToResume):
		writeError(w, http.StatusNotFound, err)
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("the document is over %d bytes", s.cfg.MaxImportBytes))
	case errors.As(err, &invalid):
		writeError(w, http.StatusBadRequest, err)
	default:
		klog.FromContext(r.Context()).Error(err, "Import")
		writeError(w, http.StatusInternalServerError, err)
	}
}

func (s *server) importStatus(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.cfg.Importer.Status())
}
