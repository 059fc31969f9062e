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
	"errors"
	"fmt"
	"net"
	"net/url"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/config"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/etcdhttp"
)

// Probe returns nil when one of the etcd endpoints of o answers /health
// with 200 over the connection kube-apiserver would make, else an error
// per endpoint. Errors name endpoints by scheme and host only.
func Probe(ctx context.Context, o *config.Options) error {
	client, err := etcdhttp.NewClient(o)
	if err != nil {
		return err
	}
	defer client.Close()
	var errs []error
	for _, endpoint := range client.Endpoints {
		err := client.Health(ctx, endpoint)
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("etcd %s: %w", endpoint, err))
	}
	return errors.Join(errs...)
}

// Listening returns nil when one of the etcd endpoints of o accepts a TCP
// connection (or names no port to try), else an error per endpoint: what
// a kube-apiserver started now needs for its first dial to succeed. etcd
// answers /health only once it has elected itself leader, up to a second
// after it listens, and kube-apiserver's start need not wait for that.
func Listening(ctx context.Context, o *config.Options) error {
	client, err := etcdhttp.NewClient(o)
	if err != nil {
		return err
	}
	defer client.Close()
	var (
		dialer net.Dialer
		errs   []error
	)
	for _, endpoint := range client.Endpoints {
		u, err := url.Parse(endpoint)
		if err != nil || u.Port() == "" {
			return nil
		}
		conn, err := dialer.DialContext(ctx, "tcp", u.Host)
		if err == nil {
			_ = conn.Close()
			return nil
		}
		errs = append(errs, fmt.Errorf("etcd %s: %w", endpoint, err))
	}
	return errors.Join(errs...)
}
