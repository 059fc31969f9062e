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
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The framework's own iptables chains (filter table) keep the pods' traffic
// on the bridge: pods may reach the node address and each other, and answer
// the host, nothing else on the machine or beyond it.
const (
	nodeInputChain   = "SIM-NODE-INPUT"
	nodeForwardChain = "SIM-NODE-FORWARD"
)

// setUpNodeNetwork creates the node's bridge with the node address and the
// iptables rules that confine the pods to it. Teardown (cleanUpHost) removes
// both. The CNI bridge plugin then attaches pods to this bridge.
func setUpNodeNetwork(ctx context.Context, record *hostRecord) error {
	if err := checkSubnetFree(ctx); err != nil {
		return err
	}
	steps := [][]string{
		{"ip", "link", "add", "name", nodeBridge, "type", "bridge"},
		{"ip", "address", "add", NodeIP + "/" + nodeSubnetBits, "dev", nodeBridge},
		{"ip", "link", "set", nodeBridge, "up"},
		// Service IPs go to the bridge from the node address: kube-proxy
		// translates them there, and without a translation they stay on
		// the machine instead of following the default route.
		{"ip", "route", "add", serviceClusterIPRange, "dev", nodeBridge, "src", NodeIP},

		{"iptables", "-w", "-N", nodeInputChain},
		// Replies to the host's own connections, e.g. to Service IPs, whose
		// source the host chose on another interface.
		{"iptables", "-w", "-A", nodeInputChain, "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "RETURN"},
		{"iptables", "-w", "-A", nodeInputChain, "-d", NodeIP, "-j", "RETURN"},
		{"iptables", "-w", "-A", nodeInputChain, "-j", "DROP"},
		{"iptables", "-w", "-I", "INPUT", "1", "-i", nodeBridge, "-j", nodeInputChain},

		{"iptables", "-w", "-N", nodeForwardChain},
		{"iptables", "-w", "-A", nodeForwardChain, "-i", nodeBridge, "-o", nodeBridge, "-j", "RETURN"},
	}
	if record.Sysctls["net/ipv4/ip_forward"] == "0" {
		// The bridge plugin turns forwarding on; the machine did not
		// forward before, so it forwards nothing but the bridge's traffic.
		steps = append(steps, []string{"iptables", "-w", "-A", nodeForwardChain, "-j", "DROP"})
	} else {
		steps = append(steps,
			[]string{"iptables", "-w", "-A", nodeForwardChain, "-s", nodeSubnet, "-j", "DROP"},
			[]string{"iptables", "-w", "-A", nodeForwardChain, "-d", nodeSubnet, "-j", "DROP"})
	}
	steps = append(steps, []string{"iptables", "-w", "-I", "FORWARD", "1", "-j", nodeForwardChain})

	for i, step := range steps {
		if i == 1 {
			// No IPv6 on the bridge: no router solicitations, no DAD.
			_ = os.WriteFile(filepath.Join("/proc/sys/net/ipv6/conf", nodeBridge, "disable_ipv6"), []byte("1\n"), 0o644)
		}
		if _, err := runCommand(ctx, step[0], step[1:]...); err != nil {
			return fmt.Errorf("setting up the node network: %w", err)
		}
	}
	return nil
}

// checkSubnetFree fails if the machine already has an address or a route
// (other than the default) in the node's subnet or the service range.
func checkSubnetFree(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join("/sys/class/net", nodeBridge)); err == nil {
		return fmt.Errorf("network interface %s exists already; delete it (ip link delete %s) if nothing uses it", nodeBridge, nodeBridge)
	}
	for _, subnet := range []string{nodeSubnet, serviceClusterIPRange} {
		addrs, err := runCommand(ctx, "ip", "-o", "-4", "address", "show", "to", subnet)
		if err != nil {
			return err
		}
		if strings.TrimSpace(addrs) != "" {
			return fmt.Errorf("the subnet %s is in use on this machine:\n%s", subnet, addrs)
		}
		first, _, _ := strings.Cut(subnet, "/")
		routes, err := runCommand(ctx, "ip", "-o", "-4", "route", "show", "to", "match", first)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSpace(routes), "\n") {
			if line != "" && !strings.HasPrefix(line, "default ") {
				return fmt.Errorf("the subnet %s is routed on this machine: %s", subnet, line)
			}
		}
	}
	return nil
}
