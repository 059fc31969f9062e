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

package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
)

// TestStartingServerTakesNoOneForAnonymous restarts sim-apiserver and asks
// it for simulators at once, as an admin, straight (as the aggregator
// does: the front proxy's certificate and X-Remote-User) and through the
// host: until it has loaded the front proxy's CA it answers 503 with
// Retry-After (clients retry), never 403 for system:anonymous, and then
// 200.
func TestStartingServerTakesNoOneForAnonymous(t *testing.T) {
	c := hostCluster(t)
	ns := createNamespace(t, "starting")
	path := "/apis/sim.x-k8s.io/v1alpha1/namespaces/" + ns + "/simulators"
	// viaHost: the aggregator answers 503 itself while nothing listens.
	type target struct {
		name    string
		cfg     *rest.Config
		viaHost bool
		client  *http.Client
		ok      bool
	}
	targets := []*target{
		{name: "straight", cfg: c.FrontProxyConfig("starting-admin", "system:masters")},
		{name: "through the host", cfg: c.Config, viaHost: true},
	}
	for _, tg := range targets {
		client, err := rest.HTTPClientFor(tg.cfg)
		if err != nil {
			t.Fatal(err)
		}
		client.Timeout = 10 * time.Second
		tg.client = client
	}

	waitServing, err := c.StartSimAPIServerAgain(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]int{}
	// As fast as it goes: the window before the CA is loaded is short.
	err = wait.PollUntilContextTimeout(t.Context(), time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		done := true
		for _, tg := range targets {
			if tg.ok {
				continue
			}
			done = false
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, tg.cfg.Host+path, nil)
			if err != nil {
				return false, err
			}
			resp, err := tg.client.Do(req)
			if err != nil {
				answers[tg.name+": no connection"]++
				continue
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			answers[fmt.Sprintf("%s: %d", tg.name, resp.StatusCode)]++
			switch {
			case resp.StatusCode == http.StatusOK:
				tg.ok = true
			case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
			case resp.StatusCode == http.StatusServiceUnavailable && tg.viaHost:
			default:
				return false, fmt.Errorf("%s: %d %s", tg.name, resp.StatusCode, body)
			}
		}
		return done, nil
	})
	t.Logf("answers while sim-apiserver started: %v", answers)
	if err != nil {
		t.Errorf("a request to the starting sim-apiserver: %v", err)
	}
	if err := waitServing(t.Context()); err != nil {
		t.Fatal(err)
	}
}
