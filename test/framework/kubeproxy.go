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
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// startKubeProxy starts kube-proxy (iptables mode) for the node, so that
// pods, and the host's aggregator, reach Services by their ClusterIP. It is
// configured to change no kernel setting: conntrack sizes and timeouts are
// left alone, and NodePorts are served on the node address only (no
// route_localnet). Its chains go with the node's teardown.
func startKubeProxy(ctx context.Context, c *Cluster, binary, dir string) (*process, error) {
	client, err := c.clusterCA.issueClient(c.pkiDir(), "kube-proxy", "system:kube-proxy", nil)
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(dir, "kube-proxy.kubeconfig")
	if err := writeKubeconfig(kubeconfig, restConfig(c.Host, c.clusterCA.certPEM(), client)); err != nil {
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	healthz := fmt.Sprintf("127.0.0.1:%d", ports[0])
	config, err := json.MarshalIndent(map[string]any{
		"apiVersion":         "kubeproxy.config.k8s.io/v1alpha1",
		"kind":               "KubeProxyConfiguration",
		"clientConnection":   map[string]string{"kubeconfig": kubeconfig},
		"mode":               "iptables",
		"hostnameOverride":   NodeName,
		"clusterCIDR":        nodeSubnet,
		"healthzBindAddress": healthz,
		"metricsBindAddress": fmt.Sprintf("127.0.0.1:%d", ports[1]),
		"nodePortAddresses":  []string{NodeIP + "/32"},
		"oomScoreAdj":        0,
		"conntrack": map[string]any{
			"maxPerCore":            0,
			"min":                   0,
			"tcpEstablishedTimeout": "0s",
			"tcpCloseWaitTimeout":   "0s",
		},
		"iptables": map[string]any{
			"localhostNodePorts": false,
			"minSyncPeriod":      "0s",
		},
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the kube-proxy configuration: %w", err)
	}
	configFile := filepath.Join(dir, "kube-proxy.yaml")
	if err := os.WriteFile(configFile, config, 0o644); err != nil {
		return nil, fmt.Errorf("writing %s: %w", configFile, err)
	}
	p, err := startProcess(ctx, "kube-proxy", c.logDir(), binary, "--config="+configFile, "--v=2")
	if err != nil {
		return nil, err
	}
	url := "http://" + healthz + "/healthz"
	err = waitFor(ctx, p, time.Minute, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return p, fmt.Errorf("waiting for kube-proxy %s: %w", url, err)
	}
	return p, nil
}
