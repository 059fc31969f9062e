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
	"net"
	"os"
	"path/filepath"
)

// kubeletConfig is the node's KubeletConfiguration, as JSON. What it takes
// on a cgroup v1 machine without systemd, with everything under the node
// directory and nothing pulled.
func kubeletConfig(dir, socket, clientCA string, serving *keyPair, ports []int) map[string]any {
	return map[string]any{
		"apiVersion":         "kubelet.config.k8s.io/v1beta1",
		"kind":               "KubeletConfiguration",
		"address":            NodeIP,
		"port":               ports[0],
		"readOnlyPort":       0,
		"healthzBindAddress": "127.0.0.1",
		"healthzPort":        ports[1],
		"tlsCertFile":        serving.certFile,
		"tlsPrivateKeyFile":  serving.keyFile,
		"authentication": map[string]any{
			"anonymous": map[string]bool{"enabled": false},
			"webhook":   map[string]bool{"enabled": true},
			"x509":      map[string]string{"clientCAFile": clientCA},
		},
		"authorization":            map[string]string{"mode": "Webhook"},
		"containerRuntimeEndpoint": "unix://" + socket,
		"cgroupDriver":             "cgroupfs",
		"cgroupsPerQOS":            false,
		"enforceNodeAllocatable":   []string{},
		"failSwapOn":               false,
		"failCgroupV1":             false,
		"podLogsDir":               filepath.Join(dir, "pod-logs"),
		// No DNS for pods: nothing in them may look beyond the machine.
		"resolvConf":    "",
		"clusterDomain": "cluster.local",
		// Only the framework's own chains: teardown removes what is new.
		"makeIPTablesUtilChains": false,
		// Images are imported, never pulled: never collect them, and never
		// evict for a disk that is merely fuller than a real node's.
		"imageGCHighThresholdPercent": 100,
		"imageGCLowThresholdPercent":  99,
		"evictionHard": map[string]string{
			"memory.available":   "100Mi",
			"nodefs.available":   "1%",
			"nodefs.inodesFree":  "1%",
			"imagefs.available":  "1%",
			"imagefs.inodesFree": "1%",
		},
		"serializeImagePulls": false,
		"rotateCertificates":  false,
		"serverTLSBootstrap":  false,
	}
}

// startKubelet starts the kubelet of NodeName on containerd's socket. It
// authenticates with a node certificate (Node authorizer) and serves on
// NodeIP with a certificate of the cluster CA, which kube-apiserver checks.
func startKubelet(ctx context.Context, c *Cluster, binary, dir string) (*process, error) {
	pki := c.pkiDir()
	serving, err := c.clusterCA.issueServing(pki, "kubelet", []string{NodeName, "localhost"},
		[]net.IP{net.ParseIP(NodeIP), net.ParseIP("127.0.0.1")})
	if err != nil {
		return nil, err
	}
	client, err := c.clusterCA.issueClient(pki, "kubelet-client", "system:node:"+NodeName, []string{"system:nodes"})
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(dir, "kubelet.kubeconfig")
	if err := writeKubeconfig(kubeconfig, restConfig(c.Host, c.clusterCA.certPEM(), client)); err != nil {
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	config, err := json.MarshalIndent(kubeletConfig(dir, containerdSocket(dir), c.clusterCA.certFile, serving, ports), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the kubelet configuration: %w", err)
	}
	configFile := filepath.Join(dir, "kubelet.yaml")
	if err := os.WriteFile(configFile, config, 0o644); err != nil {
		return nil, fmt.Errorf("writing %s: %w", configFile, err)
	}
	return startProcess(ctx, "kubelet", c.logDir(), binary,
		"--config="+configFile,
		"--kubeconfig="+kubeconfig,
		"--root-dir="+filepath.Join(dir, "kubelet"),
		"--hostname-override="+NodeName,
		"--node-ip="+NodeIP,
		"--v=2",
	)
}
