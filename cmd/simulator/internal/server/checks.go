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
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// HealthCheck is a Check that GETs url and wants 200 "ok", the answer of
// Kubernetes components' /healthz and /readyz.
func HealthCheck(name, url string, client *http.Client) Check {
	return Check{Name: name, Check: func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "ok" {
			return fmt.Errorf("%s answered %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
		}
		return nil
	}}
}

// ReadyzCheck is a Check that GETs kube-apiserver's /readyz through a
// client-go REST client (the admin certificate) and wants 200 "ok", leaving
// out the checks that exclude returns at the time of each call.
//
// It asks once: client-go retries a GET whose connection was lost a second
// later, and that retry hid a killed kube-apiserver from the simulator's
// readiness until its successor was ready. Whoever asks asks again.
func ReadyzCheck(name string, client rest.Interface, exclude func() []string) Check {
	return Check{Name: name, Check: func(ctx context.Context) error {
		req := client.Get().AbsPath("/readyz").MaxRetries(0)
		for _, check := range exclude() {
			req = req.Param("exclude", check)
		}
		var status int
		body, err := req.Do(ctx).StatusCode(&status).Raw()
		if err != nil {
			return err
		}
		if status != http.StatusOK || strings.TrimSpace(string(body)) != "ok" {
			return fmt.Errorf("/readyz answered %d: %s", status, strings.TrimSpace(string(body)))
		}
		return nil
	}}
}

// Shared runs c at most once per maxAge for all its callers: a caller within
// maxAge of the last run's start gets that run's result, and one that comes
// while c runs waits for it. kube-apiserver's /readyz is asked by the
// simulator's own readiness, by the probes and by each child waiting to
// start; while kube-apiserver starts, every one of those answers costs it
// CPU that its post-start hooks need.
func Shared(c Check, maxAge time.Duration) Check {
	turn := make(chan struct{}, 1)
	var (
		ranAt time.Time
		last  error
	)
	return Check{Name: c.Name, Check: func(ctx context.Context) error {
		select {
		case turn <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-turn }()
		if !ranAt.IsZero() && time.Since(ranAt) < maxAge {
			return last
		}
		start := time.Now()
		err := c.Check(ctx)
		if ctx.Err() != nil {
			// This caller gave up: its cancellation is no answer for others.
			return err
		}
		ranAt, last = start, err
		return err
	}}
}

// CAClient is an HTTP client that trusts only the CAs of pool.
func CAClient(pool *x509.CertPool) *http.Client {
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}
}
