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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/resultstore"
	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// The simulator serves the full result of a Pod's latest scheduling
// attempt at GET contract.PathSchedulingResults/{namespace}/{name}. The
// scheduler (cmd/sim-scheduler) keeps them in Config.SchedulingResultsDir,
// compact, up to a JSON of maxResultJSON; the Pod carries only what fits in
// its annotations.
//
// maxResultJSON bounds the JSON of one result that the simulator renders,
// and so what it reads of one (a result's JSON takes more bytes than its
// encoding, scores that an extender did not give aside): about 180 times
// the 363 KB of a Pod's result at 5,000 nodes (500 of them scored).
const maxResultJSON = 64 << 20

func (s *server) getSchedulingResult(w http.ResponseWriter, r *http.Request) {
	namespace, name := r.PathValue("namespace"), r.PathValue("name")
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		writeError(w, http.StatusBadRequest, fmt.Errorf("namespace %q: %v", namespace, errs))
		return
	}
	if errs := content.IsPathSegmentName(name); len(errs) > 0 || name == "" {
		writeError(w, http.StatusBadRequest, fmt.Errorf("name %q: %v", name, errs))
		return
	}
	if s.cfg.SchedulingResultsDir == "" {
		writeError(w, http.StatusNotFound, errors.New("this simulator records no scheduling results"))
		return
	}
	f, doc, err := resultstore.Latest(s.cfg.SchedulingResultsDir, namespace, name)
	if errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no scheduling result for pod %s/%s", namespace, name))
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	if doc.Size() > maxResultJSON {
		// Its JSON would be larger still: refused before it is read.
		_ = f.Close()
		writeError(w, http.StatusInternalServerError, fmt.Errorf("the scheduling result of pod %s/%s: %w: %d bytes stored, more than %d",
			namespace, name, schedulingresult.ErrMalformed, doc.Size(), maxResultJSON))
		return
	}
	data, err := io.ReadAll(doc)
	_ = f.Close()
	if err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("reading the scheduling result of pod %s/%s: %w", namespace, name, err))
		return
	}
	// Stored compact (see schedulingresult): rendered only when asked for.
	var result schedulingresult.Document
	if err := result.UnmarshalBinary(data); err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("the scheduling result of pod %s/%s: %w", namespace, name, err))
		return
	}
	// A planted record could be small and render to gigabytes: a node's
	// filter results are stored once and rendered for every node.
	size := result.Size()
	if size > maxResultJSON {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("the scheduling result of pod %s/%s: %w: %d bytes of JSON, more than %d",
			namespace, name, schedulingresult.ErrMalformed, size, maxResultJSON))
		return
	}
	out := result.AppendJSON(make([]byte, 0, size))
	if !json.Valid(out) {
		// Only a record that the scheduler did not write gets here.
		writeError(w, http.StatusInternalServerError, fmt.Errorf("the scheduling result of pod %s/%s: %w: not JSON", namespace, name, schedulingresult.ErrMalformed))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// Answers HEAD and ranges too.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(out))
}

// clearSchedulingResults removes every result in dir, keeping dir. The
// scheduler writes a Pod's result only while the Pod exists, so what it
// publishes after a reset is of Pods made after it.
func clearSchedulingResults(dir string) error {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("clearing the scheduling results: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("clearing the scheduling results: %w", err)
	}
	return nil
}
