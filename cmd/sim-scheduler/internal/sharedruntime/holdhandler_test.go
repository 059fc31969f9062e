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

package sharedruntime

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestHoldHandler: a POST holds the component until its client ends the
// request; an unknown component is a 404, a server a 400.
func TestHoldHandler(t *testing.T) {
	fast(t)
	var starts atomic.Int32
	var running atomic.Bool
	rt := New(
		Component{Name: "held", Run: func(ctx context.Context) error {
			starts.Add(1)
			running.Store(true)
			defer running.Store(false)
			<-ctx.Done()
			return nil
		}},
		Component{Name: "server", Server: true, Run: func(ctx context.Context) error {
			<-ctx.Done()
			return nil
		}},
	)
	runUntilEnd(t, rt)
	srv := httptest.NewServer(HoldHandler(rt))
	defer srv.Close()
	waitFor(t, "the first start", func() bool { return running.Load() })

	holdCtx, endHold := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(holdCtx, http.MethodPost, srv.URL+HoldPath+"held", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if resp.StatusCode != http.StatusOK || line != "held\n" || err != nil {
		t.Fatalf("POST = %d %q (%v), want 200 held", resp.StatusCode, line, err)
	}
	if running.Load() {
		t.Fatal("the component runs while held")
	}
	endHold()
	resp.Body.Close()
	waitFor(t, "the start once the client ended its request", func() bool { return starts.Load() == 2 && running.Load() })

	for path, want := range map[string]int{"nothing": http.StatusNotFound, "server": http.StatusBadRequest} {
		resp, err := srv.Client().Post(srv.URL+HoldPath+path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("POST %s = %d, want %d", path, resp.StatusCode, want)
		}
	}
	resp, err = srv.Client().Get(srv.URL + HoldPath + "held")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET = %d, want 405", resp.StatusCode)
	}
	if n := starts.Load(); n != 2 {
		t.Errorf("%d starts, want 2", n)
	}
}
