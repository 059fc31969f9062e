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

package simulator_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestHopGate: a simulator whose credentials hold a hop token serves its
// inner kube-apiserver through the gate to requests without a client
// certificate, as a hosting cluster's pods/proxy sends them: a GET and a
// watch as its admin, or as the identity of X-Simulator-Impersonate-*,
// never of a request's own Impersonate-*; every answer is marked.
func TestHopGate(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/hop/uid-1")
	// The token is read at start: the simulator starts again with it, as
	// a container does with new credentials.
	const token = "hop-token-of-the-test"
	if err := os.WriteFile(filepath.Join(sim.Credentials.Dir, contract.FileHopToken), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sim.Restart(t)
	sim.WaitReady(t, 2*time.Minute)
	ctx := framework.TimeoutContext(t, 5*time.Minute)
	// No client certificate, as through a hosting apiserver's proxy.
	client := sim.ServerClient(nil, time.Minute)
	do := func(path string, header http.Header) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, sim.ServerURL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(resp.Body)
		if resp.Header.Get(contract.HeaderHop) != contract.HopMark {
			t.Errorf("GET %s = %d without the mark %s", path, resp.StatusCode, contract.HeaderHop)
		}
		return resp, body
	}
	withToken := func(kv ...string) http.Header {
		h := http.Header{}
		h.Set(contract.HeaderHopToken, token)
		for i := 0; i+1 < len(kv); i += 2 {
			h.Add(kv[i], kv[i+1])
		}
		return h
	}
	namespaces := contract.PathHop + "api/v1/namespaces"

	resp, body := do(namespaces, withToken("Impersonate-User", "nobody"))
	var list corev1.NamespaceList
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &list) != nil ||
		!slices.ContainsFunc(list.Items, func(ns corev1.Namespace) bool { return ns.Name == "default" }) {
		t.Fatalf("GET %s with the token (and an Impersonate-User, dropped) = %d: %s", namespaces, resp.StatusCode, body)
	}
	// Who kube-apiserver takes the caller for (every authenticated user is
	// cluster-admin inside, so a refusal would tell nothing).
	whoAmI := func(header http.Header) string {
		t.Helper()
		path := contract.PathHop + "apis/authentication.k8s.io/v1/selfsubjectreviews"
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, sim.ServerURL+path,
			strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		defer func() { _ = resp.Body.Close() }()
		var review authenticationv1.SelfSubjectReview
		if err := json.NewDecoder(resp.Body).Decode(&review); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s = %d: %v", path, resp.StatusCode, err)
		}
		u := review.Status.UserInfo
		return u.Username + " " + strings.Join(u.Groups, ",")
	}
	if got := whoAmI(withToken("Impersonate-User", "mallory")); !strings.HasPrefix(got, contract.AdminUser+" ") {
		t.Errorf("with a request's own Impersonate-User, kube-apiserver saw %q, want the admin", got)
	}
	if got := whoAmI(withToken(contract.HeaderHopImpersonateUser, "alice", contract.HeaderHopImpersonateGroup, "team-a")); got != "alice team-a,system:authenticated" {
		t.Errorf("with X-Simulator-Impersonate-*, kube-apiserver saw %q, want alice in team-a", got)
	}
	if resp, _ := do(namespaces, http.Header{}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET %s without the token = %d, want 401", namespaces, resp.StatusCode)
	}
	if resp, body := do(contract.PathSchedulerConfig, withToken()); resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s with the token = %d %s, want the simulator's API", contract.PathSchedulerConfig, resp.StatusCode, body)
	}

	// A watch streams through the gate: a namespace made afterwards is
	// told while the watch is open.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		sim.ServerURL+namespaces+"?watch=1&resourceVersion="+list.ResourceVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = withToken()
	watchClient := sim.ServerClient(nil, 0)
	watch, err := watchClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = watch.Body.Close() }()
	if watch.StatusCode != http.StatusOK {
		t.Fatalf("watch through the gate = %d", watch.StatusCode)
	}
	if _, err := sim.Client(t).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "hop"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	events := make(chan string)
	go func() {
		defer close(events)
		lines := bufio.NewScanner(watch.Body)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			var e struct {
				Type   string           `json:"type"`
				Object corev1.Namespace `json:"object"`
			}
			if json.Unmarshal(lines.Bytes(), &e) != nil {
				continue
			}
			select {
			case events <- e.Type + " " + e.Object.Name:
			case <-ctx.Done():
				return
			}
		}
	}()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatal("the watch ended before namespace hop was told")
			}
			if e == "ADDED hop" {
				return
			}
		case <-deadline:
			t.Fatal("namespace hop was not told through the gate's watch within 30s")
		}
	}
}
