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
	"io"
	"net/http"
	"testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

type fakeSource struct{}

func (fakeSource) Status() contract.SourceStatus {
	return contract.SourceStatus{Phase: contract.SourceSyncing, Objects: map[string]int64{"pods": 3}}
}

func (fakeSource) WriteTrace(w io.Writer) error {
	_, err := io.WriteString(w, `{"type":"ADDED","resource":"pods","name":"a"}`+"\n")
	return err
}

func TestSource(t *testing.T) {
	tests := []struct {
		name       string
		source     Source
		path       string
		wantStatus int
		wantBody   string
	}{
		{"status", fakeSource{}, contract.PathSource, http.StatusOK,
			`{"phase":"Syncing","objects":{"pods":3},"shadow":{"same":0,"other":0,"unschedulable":0}}`},
		{"trace", fakeSource{}, contract.PathSourceTrace, http.StatusOK, `{"type":"ADDED","resource":"pods","name":"a"}` + "\n"},
		{"no source: status", nil, contract.PathSource, http.StatusNotFound, `{"error":"this simulator has no source"}`},
		{"no source: trace", nil, contract.PathSourceTrace, http.StatusNotFound, `{"error":"this simulator has no source"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := do(t, NewHandler(Config{Source: tc.source}), http.MethodGet, tc.path, "", nil)
			if status != tc.wantStatus || body != tc.wantBody {
				t.Errorf("GET %s = %d %s, want %d %s", tc.path, status, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}
