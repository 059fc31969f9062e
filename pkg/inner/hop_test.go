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

package inner

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// TestHopRoundTripper: through the hosting cluster the gate gets the
// token and the caller's identity in its own headers, never an
// Impersonate-* (the hosting apiserver's to read) nor a gate header the
// caller set; an answer the simulator did not mark is an error.
func TestHopRoundTripper(t *testing.T) {
	var got http.Header
	mark := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		if mark {
			w.Header().Set(contract.HeaderHop, contract.HopMark)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	client := &http.Client{Transport: HopRoundTripper(http.DefaultTransport, "gate-token")}

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/hop/kube/api/v1/nodes", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Impersonate-User", "alice")
	req.Header.Add("Impersonate-Group", "team-a")
	req.Header.Add("Impersonate-Group", "system:authenticated")
	// As client-go escapes an extra key.
	req.Header.Set("Impersonate-Extra-scopes.example.com%2fTier", "gold")
	// A caller's own try at the gate's headers.
	req.Header.Set(contract.HeaderHopImpersonateGroup, "system:masters")
	req.Header.Set(contract.HeaderHopToken, "guessed")
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	want := map[string][]string{
		contract.HeaderHopToken:                                   {"gate-token"},
		contract.HeaderHopImpersonateUser:                         {"alice"},
		contract.HeaderHopImpersonateGroup:                        {"team-a", "system:authenticated"},
		"X-Simulator-Impersonate-Extra-Scopes.example.com%2ftier": {"gold"},
		"Accept": {"application/json"},
	}
	for k := range got {
		if _, ok := want[k]; !ok && k != "Accept-Encoding" && k != "User-Agent" {
			t.Errorf("the gate got header %s: %q", k, got[k])
		}
	}
	for k, v := range want {
		if d := cmp.Diff(v, got.Values(k)); d != "" {
			t.Errorf("header %s (-want +got):\n%s", k, d)
		}
	}
	if req.Header.Get("Impersonate-User") != "alice" {
		t.Error("the caller's request was changed")
	}

	mark = false
	res, err = client.Get(srv.URL + "/hop/kube/api")
	var notFrom *NotFromSimulatorError
	if !errors.As(err, &notFrom) || notFrom.StatusCode != http.StatusOK {
		t.Errorf("an unmarked answer: %v, %v; want NotFromSimulatorError", res, err)
	}
}
