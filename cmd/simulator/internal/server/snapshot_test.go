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
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/snapshot"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

func importStatus(t *testing.T, body string) contract.ImportStatus {
	t.Helper()
	var st contract.ImportStatus
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return st
}

// TestImportAPI: POST answers 202 with the import's status at once, 409
// while it runs, 413 over the bound, 400 for what cannot be read, 404 for
// a resume with nothing stored; GET answers how the import stands.
func TestImportAPI(t *testing.T) {
	im, err := snapshot.New(snapshot.Config{Client: fake.NewClientset(), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{Importer: im, MaxImportBytes: 1024})
	doc := `{"namespaces":[{"metadata":{"name":"team"}}],"pods":[{"metadata":{"namespace":"team","name":"p"}}]}`

	status, _, body := do(t, h, http.MethodGet, contract.PathImport, "", nil)
	if status != http.StatusOK || body != "{}" {
		t.Errorf("GET before any import = %d %s, want 200 {}", status, body)
	}
	status, _, body = do(t, h, http.MethodPost, contract.PathImport+"?resume=true", "", nil)
	if status != http.StatusNotFound {
		t.Errorf("resume with nothing stored = %d %s, want 404", status, body)
	}
	status, _, body = do(t, h, http.MethodPost, contract.PathImport, `{"pods":[`+strings.Repeat(`{},`, 400)+`{}]}`, nil)
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("POST over the bound = %d %s, want 413", status, body)
	}
	status, _, body = do(t, h, http.MethodPost, contract.PathImport, `{"pods":7}`, nil)
	if status != http.StatusBadRequest || !strings.Contains(body, "pods: not a list") {
		t.Errorf("POST of a bad document = %d %s, want 400 saying why", status, body)
	}

	// Nothing runs the import yet: it stays Importing.
	status, _, body = do(t, h, http.MethodPost, contract.PathImport, doc, nil)
	if status != http.StatusAccepted {
		t.Fatalf("POST = %d %s, want 202", status, body)
	}
	if st := importStatus(t, body); st.Phase != contract.ImportImporting || st.Resources["pods"].Total != 1 {
		t.Errorf("POST answered %s, want Importing one pod", body)
	}
	for _, path := range []string{contract.PathImport, contract.PathImport + "?resume=true"} {
		status, _, body = do(t, h, http.MethodPost, path, doc, nil)
		if status != http.StatusConflict {
			t.Errorf("POST %s while importing = %d %s, want 409", path, status, body)
		}
	}
	status, _, body = do(t, h, http.MethodGet, contract.PathImport, "", nil)
	if st := importStatus(t, body); status != http.StatusOK || st.Phase != contract.ImportImporting {
		t.Errorf("GET while importing = %d %s, want Importing", status, body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { im.Run(ctx) })
	defer func() {
		cancel()
		wg.Wait()
	}()
	var st contract.ImportStatus
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		_, _, body = do(t, h, http.MethodGet, contract.PathImport, "", nil)
		st = importStatus(t, body)
		return st.Phase != contract.ImportImporting, nil
	}); err != nil {
		t.Fatalf("the import did not end: %s", body)
	}
	if st.Phase != contract.ImportSucceeded || st.Resources["pods"].Created != 1 || st.CompletionTime == nil {
		t.Errorf("GET after = %s, want Succeeded with the pod created", body)
	}
	// Resumed: the stored document, whose objects exist.
	status, _, body = do(t, h, http.MethodPost, contract.PathImport+"?resume=true", "", nil)
	if status != http.StatusAccepted {
		t.Errorf("resume = %d %s, want 202", status, body)
	}
}

// failingExport fails after writing written bytes.
type failingExport struct{ written int }

func (f failingExport) Export(_ context.Context, _ []byte, w io.Writer) error {
	if f.written > 0 {
		_, _ = w.Write(make([]byte, f.written))
	}
	return errors.New("the apiserver is gone")
}

// TestExportFails: an export that fails before it writes answers 500; one
// that fails after cuts the connection, so that no truncated document
// passes for a whole one.
func TestExportFails(t *testing.T) {
	sc := &fakeSchedulerConfig{}
	status, _, body := do(t, NewHandler(Config{SchedulerConfig: sc, Snapshotter: failingExport{}}), http.MethodGet, contract.PathExport, "", nil)
	if status != http.StatusInternalServerError || !strings.Contains(body, "the apiserver is gone") {
		t.Errorf("GET export failing at once = %d %s, want 500 saying why", status, body)
	}
	defer func() {
		if r := recover(); r != http.ErrAbortHandler {
			t.Errorf("export failing midway: recovered %v, want http.ErrAbortHandler", r)
		}
	}()
	do(t, NewHandler(Config{SchedulerConfig: sc, Snapshotter: failingExport{written: 10}}), http.MethodGet, contract.PathExport, "", nil)
}
