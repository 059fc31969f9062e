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

// Package etcdprobe finds out why kube-apiserver cannot use its etcd: it
// connects as kube-apiserver does (the same endpoints, the same CA and
// client certificate) and asks etcd's /health, so that the answer names
// what is wrong: no route, a refused connection, an unknown certificate
// authority, a client certificate etcd requires, an unhealthy etcd.
package etcdprobe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	certutil "k8s.io/client-go/util/cert"

	"sigs.k8s.io/simulator-apiserver/pkg/simulator/config"
)

// timeout bounds one endpoint's probe.
const timeout = 5 * time.Second

// Probe returns nil when one of the etcd endpoints of o answers /health
// with 200 over the connection kube-apiserver would make, else an error
// per endpoint. Errors name endpoints by scheme and host only.
func Probe(ctx context.Context, o *config.Options) error {
	client, err := newClient(o)
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	var errs []error
	for _, raw := range strings.Split(o.EtcdURL, ",") {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			errs = append(errs, fmt.Errorf("etcd URL %d: %w", len(errs)+1, err))
			continue
		}
		endpoint := (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
		err = health(ctx, client, endpoint)
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("etcd %s: %w", endpoint, err))
	}
	return errors.Join(errs...)
}

// newClient makes kube-apiserver's connection: etcd's CA and the client
// certificate of o's etcd TLS files when there are some, else the system's
// roots and no certificate.
func newClient(o *config.Options) (*http.Client, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile, certFile, keyFile := o.EtcdTLSFiles(); caFile != "" {
		pool, err := certutil.NewPool(caFile)
		if err != nil {
			return nil, fmt.Errorf("etcd's CA: %w", err)
		}
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("the etcd client certificate: %w", err)
		}
		tlsConfig.RootCAs, tlsConfig.Certificates = pool, []tls.Certificate{pair}
	}
	return &http.Client{
		Timeout: timeout,
		// No proxy from the environment: kube-apiserver dials etcd directly.
		Transport: &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: true},
	}, nil
}

func health(ctx context.Context, client *http.Client, endpoint string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		// The url.Error repeats the URL; its cause is the news.
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			return ue.Err
		}
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/health answered %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}
