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
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/config"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/reset"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/schedconfig"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/supervisor"
)

type fakeSchedulerConfig struct {
	effective []byte
	updates   int
	// first is the configuration Restore puts back.
	first []byte
}

func (f *fakeSchedulerConfig) Restore(context.Context) (bool, error) {
	if string(f.effective) == string(f.first) {
		return false, nil
	}
	f.effective = f.first
	return true, nil
}

func (f *fakeSchedulerConfig) Effective() []byte { return f.effective }

func (f *fakeSchedulerConfig) Update(_ context.Context, data []byte) ([]byte, error) {
	switch {
	case strings.Contains(string(data), "invalid"):
		return nil, &schedconfig.InvalidError{Reason: "percentageOfNodesToScore: Invalid value: 200"}
	case strings.Contains(string(data), "broken"):
		return nil, errors.New("dry run could not start")
	}
	f.updates++
	f.effective = []byte(`{"kind":"KubeSchedulerConfiguration","from":` + string(data) + `}`)
	return f.effective, nil
}

type fakeResetter struct{ err error }

func (f fakeResetter) Reset(context.Context) (reset.Result, error) {
	return reset.Result{Deleted: map[string]int{"pods": 2}, Kept: map[string]int{"services": 1}}, f.err
}

func do(t *testing.T, h http.Handler, method, path, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	data, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, rec.Result().Header, string(data)
}

func check(name string, err error) Check {
	return Check{Name: name, Check: func(context.Context) error { return err }}
}

func TestReadyz(t *testing.T) {
	tests := []struct {
		name       string
		checks     []Check
		wantStatus int
		wantBody   []string
	}{
		{
			name:       "all ready",
			checks:     []Check{check("kube-apiserver", nil), check("kube-scheduler", nil)},
			wantStatus: http.StatusOK,
			wantBody:   []string{"[+]kube-apiserver ok", "[+]kube-scheduler ok", "readyz check passed"},
		},
		{
			name:       "scheduler down",
			checks:     []Check{check("kube-apiserver", nil), check("kube-scheduler", errors.New("connection refused"))},
			wantStatus: http.StatusServiceUnavailable,
			wantBody:   []string{"[+]kube-apiserver ok", "[-]kube-scheduler not ready: connection refused", "readyz check failed"},
		},
		{
			name: "a check that hangs times out",
			checks: []Check{{Name: "kube-apiserver", Check: func(ctx context.Context) error {
				<-ctx.Done()
				return ctx.Err()
			}}},
			wantStatus: http.StatusServiceUnavailable,
			wantBody:   []string{"[-]kube-apiserver not ready: context deadline exceeded"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHandler(Config{Checks: tc.checks, CheckTimeout: 50 * time.Millisecond})
			status, _, body := do(t, h, http.MethodGet, contract.PathReadyz, "", nil)
			if status != tc.wantStatus {
				t.Errorf("status = %d, want %d", status, tc.wantStatus)
			}
			for _, want := range tc.wantBody {
				if !strings.Contains(body, want) {
					t.Errorf("body lacks %q:\n%s", want, body)
				}
			}
		})
	}
	status, _, body := do(t, NewHandler(Config{Checks: []Check{check("x", errors.New("down"))}}), http.MethodGet, contract.PathHealthz, "", nil)
	if status != http.StatusOK || body != "ok" {
		t.Errorf("healthz = %d %q, want 200 ok whatever the checks say", status, body)
	}
}

func TestReadyzWait(t *testing.T) {
	var calls atomic.Int32
	// Ready from its fourth run on: a waiting /readyz answers 200 then.
	startsReady := Check{Name: "kube-apiserver", Check: func(context.Context) error {
		if calls.Add(1) < 4 {
			return errors.New("starting")
		}
		return nil
	}}
	h := NewHandler(Config{Checks: []Check{startsReady}})
	if status, _, body := do(t, h, http.MethodGet, contract.PathReadyz, "", nil); status != http.StatusServiceUnavailable {
		t.Errorf("readyz without wait = %d %s, want 503 at once", status, body)
	}
	status, _, body := do(t, h, http.MethodGet, contract.PathReadyz+"?"+contract.ReadyzWaitParam+"=2s", "", nil)
	if status != http.StatusOK || !strings.Contains(body, "readyz check passed") {
		t.Errorf("readyz?wait=2s = %d %s, want 200 once the check passes", status, body)
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("the check ran %d times, want 4 (until it passed)", n)
	}

	h = NewHandler(Config{Checks: []Check{check("kube-scheduler", errors.New("connection refused"))}})
	status, _, body = do(t, h, http.MethodGet, contract.PathReadyz+"?"+contract.ReadyzWaitParam+"=200ms", "", nil)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "[-]kube-scheduler not ready: connection refused") {
		t.Errorf("readyz?wait=200ms with a failing check = %d %s, want 503 with the check's error", status, body)
	}
	for _, bad := range []string{"soon", "-1s", "3s"} {
		if status, _, body := do(t, h, http.MethodGet, contract.PathReadyz+"?"+contract.ReadyzWaitParam+"="+bad, "", nil); status != http.StatusBadRequest {
			t.Errorf("readyz?wait=%s = %d %s, want 400", bad, status, body)
		}
	}
}

func TestSchedulerConfiguration(t *testing.T) {
	sc := &fakeSchedulerConfig{}
	h := NewHandler(Config{SchedulerConfig: sc})
	if status, _, _ := do(t, h, http.MethodGet, contract.PathSchedulerConfig, "", nil); status != http.StatusServiceUnavailable {
		t.Errorf("GET before any configuration = %d, want 503", status)
	}
	status, _, body := do(t, h, http.MethodPut, contract.PathSchedulerConfig, `"invalid"`, nil)
	if status != http.StatusBadRequest || !strings.Contains(body, "percentageOfNodesToScore: Invalid value: 200") {
		t.Errorf("PUT invalid = %d %s, want 400 with the reason", status, body)
	}
	if status, _, _ := do(t, h, http.MethodPut, contract.PathSchedulerConfig, `"broken"`, nil); status != http.StatusInternalServerError {
		t.Errorf("PUT when the check cannot run = %d, want 500", status)
	}
	if sc.updates != 0 {
		t.Fatalf("refused updates were applied")
	}
	status, header, body := do(t, h, http.MethodPut, contract.PathSchedulerConfig, `"good"`, nil)
	if status != http.StatusOK || header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"from":"good"`) {
		t.Errorf("PUT good = %d %s %s, want 200 with the configuration", status, header.Get("Content-Type"), body)
	}
	status, _, got := do(t, h, http.MethodGet, contract.PathSchedulerConfig, "", nil)
	if status != http.StatusOK || got != body {
		t.Errorf("GET = %d %s, want 200 %s", status, got, body)
	}
	if status, _, _ := do(t, h, http.MethodPut, contract.PathSchedulerConfig, strings.Repeat("x", maxBody+1), nil); status != http.StatusRequestEntityTooLarge {
		t.Errorf("PUT of a huge body = %d, want 413", status)
	}
}

func TestReset(t *testing.T) {
	status, _, body := do(t, NewHandler(Config{Resetter: fakeResetter{}}), http.MethodPut, contract.PathReset, "", nil)
	if status != http.StatusOK || body != `{"deleted":{"pods":2},"kept":{"services":1},"schedulerConfigurationRestored":false}` {
		t.Errorf("reset = %d %s", status, body)
	}
	// A configuration set through the API goes back to the simulator's own.
	sc := &fakeSchedulerConfig{effective: []byte("mine"), first: []byte("spec's")}
	status, _, body = do(t, NewHandler(Config{Resetter: fakeResetter{}, SchedulerConfig: sc}), http.MethodPut, contract.PathReset, "", nil)
	if status != http.StatusOK || !strings.Contains(body, `"schedulerConfigurationRestored":true`) || string(sc.effective) != "spec's" {
		t.Errorf("reset after a configuration change = %d %s, configuration %q", status, body, sc.effective)
	}
	status, _, body = do(t, NewHandler(Config{Resetter: fakeResetter{err: errors.New("etcd down")}}), http.MethodPut, contract.PathReset, "", nil)
	if status != http.StatusInternalServerError || !strings.Contains(body, "etcd down") {
		t.Errorf("failed reset = %d %s", status, body)
	}
	if status, _, _ := do(t, NewHandler(Config{Resetter: fakeResetter{}}), http.MethodPost, contract.PathReset, "", nil); status != http.StatusMethodNotAllowed {
		t.Errorf("POST reset = %d, want 405", status)
	}
}

func TestProcesses(t *testing.T) {
	h := NewHandler(Config{Processes: func() []supervisor.Status {
		return []supervisor.Status{{Name: "kube-apiserver", PID: 42, Starts: 1}}
	}})
	status, _, body := do(t, h, http.MethodGet, contract.PathProcesses, "", nil)
	if status != http.StatusOK || !strings.Contains(body, `"name":"kube-apiserver","pid":42,"starts":1`) {
		t.Errorf("processes = %d %s", status, body)
	}
}

func TestCORS(t *testing.T) {
	origins, err := config.CompileOrigins([]string{"http://localhost:3000"})
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(Config{AllowedOrigins: origins, Checks: []Check{check("x", nil)}})
	preflight := func(origin string) map[string]string {
		return map[string]string{"Origin": origin, "Access-Control-Request-Method": "PUT"}
	}

	status, header, _ := do(t, h, http.MethodOptions, contract.PathSchedulerConfig, "", preflight("http://localhost:3000"))
	if status != http.StatusNoContent || header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" ||
		!strings.Contains(header.Get("Access-Control-Allow-Methods"), "PUT") {
		t.Errorf("allowed preflight = %d %v", status, header)
	}
	status, header, _ = do(t, h, http.MethodOptions, contract.PathSchedulerConfig, "", preflight("http://localhost:3000.evil.com"))
	if status != http.StatusForbidden || header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("disallowed preflight = %d %v", status, header)
	}
	status, header, _ = do(t, h, http.MethodGet, contract.PathReadyz, "", map[string]string{"Origin": "http://localhost:3000"})
	if status != http.StatusOK || header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" || header.Get("Vary") != "Origin" {
		t.Errorf("allowed GET = %d %v", status, header)
	}
	status, header, _ = do(t, h, http.MethodGet, contract.PathReadyz, "", map[string]string{"Origin": "http://evil.com"})
	if status != http.StatusOK || header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("disallowed GET = %d %v, want served without CORS headers", status, header)
	}
}

func TestReadyzCheck(t *testing.T) {
	hooks := []string{"poststarthook/rbac/bootstrap-roles", "poststarthook/scheduling/bootstrap-system-priority-classes"}
	tests := []struct {
		name       string
		exclude    []string
		status     int
		retryAfter string
		body       string
		drop       bool
		wantErr    bool
	}{
		{name: "ok", status: http.StatusOK, body: "ok"},
		{name: "not ready", status: http.StatusInternalServerError, body: "[-]poststarthook/rbac/bootstrap-roles failed", wantErr: true},
		{name: "200 without ok", status: http.StatusOK, body: "something else", wantErr: true},
		{name: "hooks left out", exclude: hooks, status: http.StatusOK, body: "ok"},
		// What client-go would retry a second later: the check answers
		// what it sees now.
		{name: "connection dropped", drop: true, wantErr: true},
		{name: "retry after", status: http.StatusTooManyRequests, retryAfter: "1", body: "too many requests", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var requests atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/readyz" {
					http.NotFound(w, r)
					return
				}
				requests.Add(1)
				if tc.drop {
					// As a killed kube-apiserver: the connection ends with no answer.
					conn, _, err := http.NewResponseController(w).Hijack()
					if err != nil {
						t.Error(err)
						return
					}
					_ = conn.Close()
					return
				}
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				// kube-apiserver fails a check it is told to leave out
				// that it does not have; here: exactly the ones asked.
				if got := r.URL.Query()["exclude"]; !slices.Equal(got, tc.exclude) {
					w.WriteHeader(http.StatusBadRequest)
					_, _ = fmt.Fprintf(w, "exclude %q, want %q", got, tc.exclude)
					return
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer ts.Close()
			client, err := kubernetes.NewForConfig(&rest.Config{Host: ts.URL})
			if err != nil {
				t.Fatal(err)
			}
			err = ReadyzCheck("kube-apiserver", client.Discovery().RESTClient(), func() []string { return tc.exclude }).Check(context.Background())
			if (err != nil) != tc.wantErr {
				t.Errorf("error = %v, want error: %v", err, tc.wantErr)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("kube-apiserver was asked %d times, want once", n)
			}
		})
	}
}

func TestShared(t *testing.T) {
	var runs atomic.Int32
	release := make(chan struct{})
	slow := Check{Name: "slow", Check: func(ctx context.Context) error {
		runs.Add(1)
		select {
		case <-release:
			return errors.New("not ready")
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	shared := Shared(slow, time.Hour)

	// A caller that gives up leaves no result behind.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := shared.Check(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v", err)
	}

	// Callers that come while it runs wait for that run and share its result.
	errs := make(chan error, 5)
	for range 5 {
		go func() { errs <- shared.Check(context.Background()) }()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	for range 5 {
		if err := <-errs; err == nil || err.Error() != "not ready" {
			t.Errorf("caller got %v, want the run's error", err)
		}
	}
	// The cancelled run may or may not have started c; the five shared one.
	if n := runs.Load(); n < 1 || n > 2 {
		t.Errorf("c ran %d times for 6 callers, want one run for the 5 that waited", n)
	}
	before := runs.Load()
	if err := shared.Check(context.Background()); err == nil || runs.Load() != before {
		t.Errorf("a caller within maxAge: %v after %d more runs, want the last result and no run", err, runs.Load()-before)
	}

	// Past maxAge it runs again.
	var fresh atomic.Int32
	quick := Shared(Check{Name: "quick", Check: func(context.Context) error { fresh.Add(1); return nil }}, time.Millisecond)
	_ = quick.Check(context.Background())
	time.Sleep(5 * time.Millisecond)
	_ = quick.Check(context.Background())
	if fresh.Load() != 2 {
		t.Errorf("after maxAge: %d runs, want 2", fresh.Load())
	}
}
