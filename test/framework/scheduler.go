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
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"time"
)

// startKubeScheduler starts kube-scheduler on loopback and waits until it
// is healthy.
func startKubeScheduler(ctx context.Context, c *Cluster, binary string) (*process, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pki := c.pkiDir()
	client, err := c.clusterCA.issueClient(pki, "kube-scheduler", "system:kube-scheduler", nil)
	if err != nil {
		return nil, err
	}
	serving, err := c.clusterCA.issueServing(pki, "kube-scheduler-serving", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(c.Dir, "kube-scheduler.kubeconfig")
	if err := writeKubeconfig(kubeconfig, restConfig(c.Host, c.clusterCA.certPEM(), client)); err != nil {
		return nil, err
	}
	p, err := startProcess(ctx, "kube-scheduler", c.logDir(), binary,
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--tls-cert-file="+serving.certFile,
		"--tls-private-key-file="+serving.keyFile,
		"--leader-elect=false",
		"--v=2",
	)
	if err != nil {
		return nil, err
	}
	httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.clusterCA.Pool()}}}
	url := loopbackURL("https", port) + "/healthz"
	err = waitFor(ctx, p, time.Minute, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return p, fmt.Errorf("waiting for kube-scheduler %s: %w", url, err)
	}
	return p, nil
}
