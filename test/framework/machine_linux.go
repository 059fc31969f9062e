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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// MachineState is what a cluster with a node may change on the machine and
// must restore when it stops, for tests of the teardown.
type MachineState struct {
	links     []string
	firewall  string // iptables-save, ip6tables-save and nft list tables
	sysctls   map[string]string
	mounts    []string
	cgroups   []string // k8s.io directories of the cgroup hierarchies
	paths     []string // of those that may be created, the ones that exist
	processes []string // node processes running
}

// nodeProcesses are the names of the processes only a node runs.
var nodeProcesses = []string{"containerd", "containerd-shim", "kubelet", "pause"}

// SnapshotMachine reads the machine's MachineState. Take it while holding
// LockMachine, which installs the node's packages first: they give the
// firewall commands (without them there would be no ruleset to read, and
// the snapshot would differ from any later one).
func SnapshotMachine() (*MachineState, error) {
	s := &MachineState{sysctls: map[string]string{}}
	s.links = dirEntries("/sys/class/net")
	for _, command := range [][]string{{"iptables-save"}, {"ip6tables-save"}, {"nft", "list", "tables"}} {
		if _, err := exec.LookPath(command[0]); err != nil {
			return nil, fmt.Errorf("reading the firewall needs %s, from the node's packages (InstallNodePackages): %w", command[0], err)
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
	for _, key := range restoredSysctls {
		value, err := os.ReadFile(filepath.Join("/proc/sys", key))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
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
	for _, hierarchy := range cgroupHierarchies() {
		if dir := filepath.Join(hierarchy, containerdCgroupParent); exists(dir) {
			s.cgroups = append(s.cgroups, dir)
		}
	}
	for _, path := range []string{"/run/containerd", "/run/netns", hostStateDir, "/opt/containerd", "/var/lib/kubelet", "/var/lib/kubelet/device-plugins", "/var/log/pods", "/etc/cni/net.d"} {
		if exists(path) {
			s.paths = append(s.paths, path)
		}
	}
	for _, pid := range dirEntries("/proc") {
		comm, err := os.ReadFile(filepath.Join("/proc", pid, "comm"))
		if err != nil {
			continue
		}
		if n, err := strconv.Atoi(pid); err != nil || !alive(n) {
			continue
		}
		name := strings.TrimSpace(string(comm))
		if slices.ContainsFunc(nodeProcesses, func(p string) bool { return strings.HasPrefix(name, p) }) {
			s.processes = append(s.processes, pid+" "+name)
		}
	}
	return s, nil
}

// Diff describes how after differs from s; empty if it does not.
func (s *MachineState) Diff(after *MachineState) string {
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

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
