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
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation"
)

// PathSchedulingResults serves the full result of a Pod's latest scheduling
// attempt: GET PathSchedulingResults/{namespace}/{name}. The scheduler
// (cmd/sim-scheduler) writes them to Config.SchedulingResultsDir as
// <namespace>/<name>.json, whatever their size; the Pod carries only what
// fits in its annotations.
const PathSchedulingResults = "/api/v1/schedulingresults"

func (s *server) getSchedulingResult(w http.ResponseWriter, r *http.Request) {
	namespace, name := r.PathValue("namespace"), r.PathValue("name")
	// Valid object names hold no path separators or dot-dot: the file is
	// inside the directory.
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		writeError(w, http.StatusBadRequest, fmt.Errorf("namespace %q: %v", namespace, errs))
		return
	}
	if errs := path.IsValidPathSegmentName(name); len(errs) > 0 || name == "" {
		writeError(w, http.StatusBadRequest, fmt.Errorf("name %q: %v", name, errs))
		return
	}
	if s.cfg.SchedulingResultsDir == "" {
		writeError(w, http.StatusNotFound, errors.New("this simulator records no scheduling results"))
		return
	}
	f, err := os.Open(filepath.Join(s.cfg.SchedulingResultsDir, namespace, name+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no scheduling result for pod %s/%s", namespace, name))
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// Streams the file, however large, and answers HEAD and ranges too.
	http.ServeContent(w, r, "", st.ModTime(), f)
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
