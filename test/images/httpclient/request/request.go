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

// Package request is what the test client (test/images/httpclient) and the
// tests that run it in a Pod share: the requests it is told to make, one
// JSON object per argument, and the result it prints for each, one JSON
// line per request on stdout.
package request

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Spec is one request.
type Spec struct {
	// Name identifies the request's Result.
	Name string `json:"name"`
	// Method defaults to GET.
	Method string `json:"method,omitempty"`
	URL    string `json:"url"`
	// CertFile and KeyFile, if set, are the client certificate, sent
	// whatever CAs the server says it accepts (a forgery is sent too).
	CertFile string `json:"certFile,omitempty"`
	KeyFile  string `json:"keyFile,omitempty"`
	// CAFile verifies the server; without it the server is not verified
	// (an attacker does not care whom it talks to).
	CAFile string `json:"caFile,omitempty"`
	// BearerTokenFile, if set, is sent as an Authorization: Bearer token.
	BearerTokenFile string `json:"bearerTokenFile,omitempty"`
}

// Result is what one request got: an HTTP status, or the error that
// stopped it before a response (refused, timed out, TLS).
type Result struct {
	Name   string `json:"name"`
	Status int    `json:"status,omitempty"`
	// Body is the start of the response's body, for the test's messages.
	Body  string `json:"body,omitempty"`
	Error string `json:"error,omitempty"`
}

const (
	// DefaultTimeout bounds a request: a connection that a NetworkPolicy
	// drops times out rather than waiting forever.
	DefaultTimeout = 10 * time.Second
	// bodyExcerpt is how much of a response's body a Result keeps.
	bodyExcerpt = 512
)

// Do makes the request, each on a new connection, within timeout.
func Do(ctx context.Context, spec Spec, timeout time.Duration) Result {
	result := Result{Name: spec.Name}
	if err := do(ctx, spec, timeout, &result); err != nil {
		result.Error = err.Error()
	}
	return result
}

func do(ctx context.Context, spec Spec, timeout time.Duration, result *Result) error {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if spec.CAFile == "" {
		tlsConfig.InsecureSkipVerify = true //nolint:gosec // an attacker's client
	} else {
		data, err := os.ReadFile(spec.CAFile)
		if err != nil {
			return err
		}
		tlsConfig.RootCAs = x509.NewCertPool()
		if !tlsConfig.RootCAs.AppendCertsFromPEM(data) {
			return fmt.Errorf("%s holds no PEM certificate", spec.CAFile)
		}
	}
	if spec.CertFile != "" || spec.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(spec.CertFile, spec.KeyFile)
		if err != nil {
			return err
		}
		// Certificates alone would be sent only when the server lists
		// its issuer among the CAs it accepts; a forgery must reach it.
		tlsConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	}
	method := spec.Method
	if method == "" {
		method = http.MethodGet
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, spec.URL, http.NoBody)
	if err != nil {
		return err
	}
	if spec.BearerTokenFile != "" {
		token, err := os.ReadFile(spec.BearerTokenFile)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	}
	transport := &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: true}
	defer transport.CloseIdleConnections()
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	result.Status = resp.StatusCode
	excerpt, err := io.ReadAll(io.LimitReader(resp.Body, bodyExcerpt))
	result.Body = string(excerpt)
	if err != nil {
		return fmt.Errorf("reading the body: %w", err)
	}
	return nil
}

// ParseArgs decodes the client's arguments, one Spec each.
func ParseArgs(args []string) ([]Spec, error) {
	specs := make([]Spec, 0, len(args))
	names := map[string]bool{}
	for i, arg := range args {
		var spec Spec
		decoder := json.NewDecoder(strings.NewReader(arg))
		decoder.DisallowUnknownFields()
		if err := decoder.Decode(&spec); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
		switch {
		case spec.Name == "":
			return nil, fmt.Errorf("argument %d: no name", i+1)
		case names[spec.Name]:
			return nil, fmt.Errorf("argument %d: name %q is used twice", i+1, spec.Name)
		case spec.URL == "":
			return nil, fmt.Errorf("argument %d (%s): no url", i+1, spec.Name)
		}
		names[spec.Name] = true
		specs = append(specs, spec)
	}
	return specs, nil
}

// Args encodes specs as the client's arguments.
func Args(specs ...Spec) ([]string, error) {
	args := make([]string, 0, len(specs))
	for _, spec := range specs {
		data, err := json.Marshal(spec)
		if err != nil {
			return nil, err
		}
		args = append(args, string(data))
	}
	return args, nil
}

// ParseResults reads the client's output (e.g. its Pod's log): one Result
// per line, by name. Any other line is an error: the output is the client's
// alone.
func ParseResults(output string) (map[string]Result, error) {
	results := map[string]Result{}
	scanner := bufio.NewScanner(strings.NewReader(output))
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" {
			continue
		}
		var result Result
		decoder := json.NewDecoder(strings.NewReader(line))
		decoder.DisallowUnknownFields()
		if err := decoder.Decode(&result); err != nil || result.Name == "" {
			return nil, fmt.Errorf("not a result: %q", line)
		}
		if _, ok := results[result.Name]; ok {
			return nil, fmt.Errorf("two results for %q", result.Name)
		}
		results[result.Name] = result
	}
	return results, scanner.Err()
}

// String is the result as a test reports it.
func (r Result) String() string {
	if r.Error != "" {
		return "error: " + r.Error
	}
	return fmt.Sprintf("%d %s", r.Status, strings.TrimSpace(r.Body))
}
