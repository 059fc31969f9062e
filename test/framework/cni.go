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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// writeCNIConfig writes the node's CNI network: the bridge plugin on the
// framework's bridge (gateway address, no masquerading: pod traffic never
// leaves the machine) with host-local IPAM in the node's subnet, then
// portmap for hostPorts. It returns the configuration directory.
func writeCNIConfig(dir string) (string, error) {
	confDir := filepath.Join(dir, "cni", "net.d")
	if err := os.MkdirAll(confDir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", confDir, err)
	}
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       "sim-node",
		"plugins": []map[string]any{
			{
				"type":        "bridge",
				"bridge":      nodeBridge,
				"isGateway":   true,
				"ipMasq":      false,
				"hairpinMode": true,
				"ipam": map[string]any{
					"type":    "host-local",
					"dataDir": filepath.Join(dir, "cni", "ipam"),
					"ranges":  [][]map[string]string{{{"subnet": nodeSubnet, "gateway": NodeIP}}},
					// A default route, as the components in pods look
					// for one to pick their address.
					"routes": []map[string]string{{"dst": "0.0.0.0/0"}},
				},
			},
			{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	data, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encoding the CNI configuration: %w", err)
	}
	file := filepath.Join(confDir, "10-sim-node.conflist")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return "", fmt.Errorf("writing %s: %w", file, err)
	}
	return confDir, nil
}
