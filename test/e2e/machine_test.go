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

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// machineState is what a cluster with a node may change on the machine and
// must restore when it stops.
type machineState struct {
	links     []string
	firewall  string // iptables-save, ip6tables-save and nft list tables
	sysctls   map[string]string
	mounts    []string
	cgroups   []string // k8s.io directories of the cgroup hierarchies
	paths     []string // of those that may be created, the ones that exist
	processes []string // node processes running
}

// nodeSysctls are the kernel settings the bridge plugin and the kubelet change.
var nodeSysctls = []string{
	"net/ipv4/ip_forward", "vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic",
	"kernel/panic_on_oops", "kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes",
}

// nodeProcesses are the names of the processes only a node runs.
var nodeProcesses = []string{"containerd", "containerd-shim", "kubelet", "pause"}

func snapshotMachine() (*machineState, error) {
	s := &machineState{sysctls: map[string]string{}}
	s.links = names("/sys/class/net")
	for _, command := range [][]string{{"iptables-save"}, {"ip6tables-save"}, {"nft", "list", "tables"}} {
		if _, err := exec.LookPath(command[0]); err != nil {
			continue
		}
		out, err := exec.Command(command[0], command[1:]...).Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(command, " "), err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if !strings.HasPrefix(line, "#") {
				s.firewall += line + "\n"
			}
		}
	}
	for _, key := range nodeSysctls {
		value, err := os.ReadFile(filepath.Join("/proc/sys", key))
		if err != nil {
			return nil, err
		}
		s.sysctls[key] = strings.TrimSpace(string(value))
	}
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(mountinfo), "\n") {
		if fields := strings.Fields(line); len(fields) > 4 {
			s.mounts = append(s.mounts, fields[4])
		}
	}
	slices.Sort(s.mounts)
	s.mounts = slices.Compact(s.mounts)
	cgroups, _ := filepath.Glob("/sys/fs/cgroup/*/k8s.io")
	direct, _ := filepath.Glob("/sys/fs/cgroup/k8s.io")
	s.cgroups = append(cgroups, direct...)
	for _, path := range []string{"/run/containerd", "/run/netns", "/run/simulator-apiserver/node.json", "/opt/containerd", "/var/lib/kubelet", "/var/log/pods", "/etc/cni/net.d"} {
		if _, err := os.Stat(path); err == nil {
			s.paths = append(s.paths, path)
		}
	}
	for _, pid := range names("/proc") {
		comm, err := os.ReadFile(filepath.Join("/proc", pid, "comm"))
		if err != nil {
			continue
		}
		name := strings.TrimSpace(string(comm))
		if slices.ContainsFunc(nodeProcesses, func(p string) bool { return strings.HasPrefix(name, p) }) {
			s.processes = append(s.processes, pid+" "+name)
		}
	}
	return s, nil
}

// diff describes how after differs from s; empty if it does not.
func (s *machineState) diff(after *machineState) string {
	var b strings.Builder
	list := func(what string, before, now []string) {
		for _, e := range now {
			if !slices.Contains(before, e) {
				fmt.Fprintf(&b, "  %s added: %s\n", what, e)
			}
		}
		for _, e := range before {
			if !slices.Contains(now, e) {
				fmt.Fprintf(&b, "  %s removed: %s\n", what, e)
			}
		}
	}
	list("network interface", s.links, after.links)
	if s.firewall != after.firewall {
		fmt.Fprintf(&b, "  firewall before:\n%s  firewall after:\n%s", s.firewall, after.firewall)
	}
	for key, value := range s.sysctls {
		if after.sysctls[key] != value {
			fmt.Fprintf(&b, "  sysctl %s: %s, was %s\n", key, after.sysctls[key], value)
		}
	}
	list("mount", s.mounts, after.mounts)
	list("cgroup", s.cgroups, after.cgroups)
	list("path", s.paths, after.paths)
	list("process", s.processes, after.processes)
	return b.String()
}

func names(dir string) []string {
	entries, _ := os.ReadDir(dir)
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
