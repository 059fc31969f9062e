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

package framework

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// startEtcd starts the host's etcd on loopback and waits until it is
// healthy. It returns the process and the client URL.
func startEtcd(ctx context.Context, c *Cluster, binary string) (*process, string, error) {
	return startEtcdAt(ctx, "etcd", filepath.Join(c.Dir, "etcd"), c.logDir(), binary)
}

// startEtcdAt starts a single-member etcd named name with its data in dataDir.
func startEtcdAt(ctx context.Context, name, dataDir, logDir, binary string) (*process, string, error) {
	return startEtcdWith(ctx, name, dataDir, logDir, binary, "http", nil)
}

// throwawayEtcdFlags are the flags of an etcd whose data no one keeps.
var throwawayEtcdFlags = []string{
	// A throwaway cluster: durability is not worth the fsync latency.
	"--unsafe-no-fsync=true",
	"--log-level=warn",
}

// startEtcdWith is startEtcdAt serving scheme (http or https) with extra
// flags; tlsConfig is the client configuration of its health checks.
func startEtcdWith(ctx context.Context, name, dataDir, logDir, binary, scheme string, tlsConfig *tls.Config, extra ...string) (*process, string, error) {
	return startEtcdProcess(ctx, name, dataDir, logDir, binary, scheme, tlsConfig, nil, append(slices.Clone(throwawayEtcdFlags), extra...)...)
}

// startEtcdProcess starts a single-member etcd on loopback with vars
// (NAME=value) added to its environment and flags beyond its name,
// addresses and data directory, and waits until it is healthy.
func startEtcdProcess(ctx context.Context, name, dataDir, logDir, binary, scheme string, tlsConfig *tls.Config, vars []string, flags ...string) (*process, string, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, "", err
	}
	clientURL, peerURL := loopbackURL(scheme, ports[0]), loopbackURL("http", ports[1])
	args := append([]string{
		"--name=etcd",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=etcd=" + peerURL,
		"--initial-cluster-state=new",
	}, flags...)
	p, err := startProcessWithVars(ctx, name, logDir, vars, binary, args...)
	if err != nil {
		return nil, "", err
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	err = waitFor(ctx, p, 30*time.Second, func(ctx context.Context) (bool, error) {
		return etcdHealthy(ctx, client, clientURL), nil
	})
	if err != nil {
		return p, "", fmt.Errorf("waiting for etcd to be healthy: %w", err)
	}
	return p, clientURL, nil
}

func etcdHealthy(ctx context.Context, client *http.Client, clientURL string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientURL+"/health", nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == http.StatusOK && strings.Contains(string(body), `"health":"true"`)
}

// waitFor polls condition every 100ms until it is true, the timeout passes
// or the process exits; in the last two cases the error carries the tail of
// the process log.
func waitFor(ctx context.Context, p *process, timeout time.Duration, condition wait.ConditionWithContextFunc) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if exited, _ := p.exited(); exited {
			return false, p.exitError()
		}
		return condition(ctx)
	})
	if err != nil && !errors.Is(err, errExited) {
		return fmt.Errorf("%w; last lines of %s:\n%s", err, p.logPath, p.tail(30))
	}
	return err
}
