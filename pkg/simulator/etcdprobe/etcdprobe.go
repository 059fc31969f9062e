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

	"sigs.k8s.io/simulator-apiserver/pkg/simulator/config"
	"sigs.k8s.io/simulator-apiserver/pkg/simulator/etcdhttp"
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
