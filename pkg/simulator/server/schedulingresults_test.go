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
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSchedulingResults(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "default"), 0o755); err != nil {
		t.Fatal(err)
	}
	result := `{"name":"web","filter-result":{"n1":{"NodeResourcesFit":"passed"}}}`
	if err := os.WriteFile(filepath.Join(dir, "default", "web.json"), []byte(result), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file outside the directory that a path trick would reach.
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{SchedulingResultsDir: dir})
	for _, tc := range []struct {
		path       string
		wantStatus int
		wantBody   string
	}{
		{PathSchedulingResults + "/default/web", http.StatusOK, result},
		{PathSchedulingResults + "/default/db", http.StatusNotFound, "no scheduling result for pod default/db"},
		{PathSchedulingResults + "/Default/web", http.StatusBadRequest, "namespace"},
		{PathSchedulingResults + "/default/..%2Fsecret", http.StatusBadRequest, "name"},
		{PathSchedulingResults + "/default/%2E%2E", http.StatusBadRequest, "name"},
	} {
		status, header, body := do(t, h, http.MethodGet, tc.path, "", nil)
		if status != tc.wantStatus || !strings.Contains(body, tc.wantBody) {
			t.Errorf("GET %s = %d %s, want %d with %q", tc.path, status, body, tc.wantStatus, tc.wantBody)
		}
		if status == http.StatusOK && header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: Content-Type %q", tc.path, header.Get("Content-Type"))
		}
	}
	if status, _, _ := do(t, NewHandler(Config{}), http.MethodGet, PathSchedulingResults+"/default/web", "", nil); status != http.StatusNotFound {
		t.Errorf("without a results directory: %d, want 404", status)
	}
}

// A reset removes the scheduling results with the Pods.
func TestResetClearsSchedulingResults(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "default"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "default", "web.json"), []byte(`{"name":"web"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{SchedulingResultsDir: dir, Resetter: fakeResetter{}})
	if status, _, _ := do(t, h, http.MethodGet, PathSchedulingResults+"/default/web", "", nil); status != http.StatusOK {
		t.Fatalf("GET before the reset: %d, want 200", status)
	}
	if status, _, body := do(t, h, http.MethodPut, PathReset, "", nil); status != http.StatusOK {
		t.Fatalf("PUT %s = %d %s", PathReset, status, body)
	}
	if status, _, body := do(t, h, http.MethodGet, PathSchedulingResults+"/default/web", "", nil); status != http.StatusNotFound {
		t.Errorf("GET after the reset = %d %s, want 404", status, body)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("results directory after the reset: %v, %v; want it empty", entries, err)
	}
}
