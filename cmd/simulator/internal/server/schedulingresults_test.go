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
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// writeSegment writes segment seq of the scheduler's results layout (see
// resultstore): the documents of docs (pairs of namespace/name and
// document) one after another, and a line for each; tail is appended to the
// index as is (a line being written).
func writeSegment(t *testing.T, dir string, seq int, tail string, docs ...string) {
	t.Helper()
	var log, index strings.Builder
	for i := 0; i < len(docs); i += 2 {
		fmt.Fprintf(&index, "%s %d %d\n", docs[i], log.Len(), len(docs[i+1]))
		log.WriteString(docs[i+1])
	}
	index.WriteString(tail)
	base := filepath.Join(dir, fmt.Sprintf("%016d", seq))
	if err := os.WriteFile(base+".log", []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".idx", []byte(index.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// result is a stored result of namespace/name, encoded, and its JSON.
func result(t *testing.T, namespace, name string, attempt int) (string, string) {
	t.Helper()
	d := &schedulingresult.Document{Namespace: namespace, Name: name, UID: "u", Summary: fmt.Appendf(nil, `{"attempt":%d}`, attempt),
		Fields: []schedulingresult.Field{{Name: "filter-result", Kind: schedulingresult.KindFilter, PerNode: true}},
		Filter: schedulingresult.FilterTable{Nodes: []string{"n1"}, Verdicts: [][]schedulingresult.PluginResult{{{Plugin: "NodeResourcesFit", Result: "passed"}}}, Of: []int{0}}}
	data, err := d.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), string(d.AppendJSON(nil))
}

func TestSchedulingResults(t *testing.T) {
	dir := t.TempDir()
	web1, _ := result(t, "default", "web", 1)
	web2, _ := result(t, "default", "web", 2)
	web3, webJSON := result(t, "default", "web", 3)
	db, dbJSON := result(t, "default", "db", 1)
	otherWeb, otherWebJSON := result(t, "other", "web", 1)
	cache, cacheJSON := result(t, "default", "cache", 1)
	// 1 MB of reasons rendered for each of 70 nodes.
	amplified := &schedulingresult.Document{Summary: []byte("{}"),
		Fields: []schedulingresult.Field{{Name: "filter-result", Kind: schedulingresult.KindFilter}},
		Filter: schedulingresult.FilterTable{Nodes: make([]string, 70), Of: make([]int, 70),
			Verdicts: [][]schedulingresult.PluginResult{{{Plugin: "p", Result: strings.Repeat("x", 1<<20)}}}}}
	amplifiedData, err := amplified.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	writeSegment(t, dir, 1, "",
		"default/web", web1,
		"default/db", db,
		"other/web", otherWeb,
		"default/planted", "{}",
		"default/amplified", string(amplifiedData))
	writeSegment(t, dir, 2, "",
		"default/web", web2,
		"default/web", web3)
	// The newest segment, its last line half written: its document is not
	// whole yet.
	writeSegment(t, dir, 3, "default/web 0 1", "default/cache", cache)
	// An oldest segment with a record past what the simulator reads (a
	// sparse file: nothing is written).
	writeSegment(t, dir, 0, fmt.Sprintf("default/huge 0 %d\n", maxResultJSON+1))
	if err := os.Truncate(filepath.Join(dir, fmt.Sprintf("%016d.log", 0)), maxResultJSON+1); err != nil {
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
		{contract.PathSchedulingResults + "/default/web", http.StatusOK, webJSON},
		{contract.PathSchedulingResults + "/default/db", http.StatusOK, dbJSON},
		{contract.PathSchedulingResults + "/other/web", http.StatusOK, otherWebJSON},
		{contract.PathSchedulingResults + "/default/cache", http.StatusOK, cacheJSON},
		// A record that is no result fails alone; the others are served.
		{contract.PathSchedulingResults + "/default/planted", http.StatusInternalServerError, "malformed scheduling result"},
		{contract.PathSchedulingResults + "/default/amplified", http.StatusInternalServerError, "bytes of JSON, more than 67108864"},
		{contract.PathSchedulingResults + "/default/huge", http.StatusInternalServerError, "67108865 bytes stored, more than 67108864"},
		{contract.PathSchedulingResults + "/default/we", http.StatusNotFound, "no scheduling result for pod default/we"},
		{contract.PathSchedulingResults + "/Default/web", http.StatusBadRequest, "namespace"},
		{contract.PathSchedulingResults + "/default/..%2Fsecret", http.StatusBadRequest, "name"},
		{contract.PathSchedulingResults + "/default/%2E%2E", http.StatusBadRequest, "name"},
	} {
		status, header, body := do(t, h, http.MethodGet, tc.path, "", nil)
		ok := status == tc.wantStatus && strings.Contains(body, tc.wantBody)
		if status == http.StatusOK {
			ok = ok && body == tc.wantBody
		}
		if !ok {
			t.Errorf("GET %s = %d %s, want %d with %q", tc.path, status, body, tc.wantStatus, tc.wantBody)
		}
		if status == http.StatusOK && header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: Content-Type %q", tc.path, header.Get("Content-Type"))
		}
	}
	if !strings.Contains(webJSON, `"summary":{"attempt":3}`) {
		t.Errorf("default/web: %s, want the last attempt of the newest segment with one", webJSON)
	}
	// Ranges of the document, not of the segment.
	status, _, body := do(t, h, http.MethodGet, contract.PathSchedulingResults+"/default/web", "", map[string]string{"Range": "bytes=0-7"})
	if status != http.StatusPartialContent || body != webJSON[:8] {
		t.Errorf("GET with Range bytes=0-7 = %d %q, want 206 %q", status, body, webJSON[:8])
	}
	if status, _, _ := do(t, NewHandler(Config{}), http.MethodGet, contract.PathSchedulingResults+"/default/web", "", nil); status != http.StatusNotFound {
		t.Errorf("without a results directory: %d, want 404", status)
	}
}

// A reset removes the scheduling results with the Pods.
func TestResetClearsSchedulingResults(t *testing.T) {
	dir := t.TempDir()
	web, _ := result(t, "default", "web", 1)
	writeSegment(t, dir, 1, "", "default/web", web)
	h := NewHandler(Config{SchedulingResultsDir: dir, Resetter: fakeResetter{}})
	if status, _, _ := do(t, h, http.MethodGet, contract.PathSchedulingResults+"/default/web", "", nil); status != http.StatusOK {
		t.Fatalf("GET before the reset: %d, want 200", status)
	}
	if status, _, body := do(t, h, http.MethodPut, contract.PathReset, "", nil); status != http.StatusOK {
		t.Fatalf("PUT %s = %d %s", contract.PathReset, status, body)
	}
	if status, _, body := do(t, h, http.MethodGet, contract.PathSchedulingResults+"/default/web", "", nil); status != http.StatusNotFound {
		t.Errorf("GET after the reset = %d %s, want 404", status, body)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("results directory after the reset: %v, %v; want it empty", entries, err)
	}
}
