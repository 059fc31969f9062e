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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ContainerMemoryLimit returns the memory limit of a container of the node
// in bytes, as its cgroup enforces it.
func ContainerMemoryLimit(containerID string) (int64, error) {
	dir, err := containerCgroup(containerID, "memory")
	if err != nil {
		return 0, err
	}
	for _, file := range []string{"memory.limit_in_bytes", "memory.max"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			continue
		}
		value := strings.TrimSpace(string(data))
		if value == "max" {
			return -1, nil
		}
		return strconv.ParseInt(value, 10, 64)
	}
	return 0, fmt.Errorf("no memory limit file in %s", dir)
}

// containerCgroup returns the cgroup directory of a container in the
// hierarchy of controller (on a unified machine, the only one).
func containerCgroup(containerID, controller string) (string, error) {
	_, id, ok := strings.Cut(containerID, "://")
	if !ok {
		id = containerID
	}
	for _, hierarchy := range cgroupHierarchies() {
		if hierarchy != cgroupRoot && filepath.Base(hierarchy) != controller {
			continue
		}
		dir := filepath.Join(hierarchy, containerdCgroupParent, id)
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no %s cgroup of container %s under %s", controller, id, cgroupRoot)
}

// ContainerPIDs returns the processes of a container of the node, given
// its ID as a Pod's status reports it (containerd://<id>), from its cgroup.
func ContainerPIDs(containerID string) ([]int, error) {
	dir, err := containerCgroup(containerID, "pids")
	if err != nil {
		return nil, err
	}
	return cgroupProcs(dir), nil
}

// ContainerMemory returns the memory a container of the node is charged
// for, from its memory cgroup (v1 or v2), given its ID as a Pod's status
// reports it.
func ContainerMemory(containerID string) (CgroupMemory, error) {
	dir, err := containerCgroup(containerID, "memory")
	if err != nil {
		return CgroupMemory{}, err
	}
	// v2 names, then v1's (total_: the cgroup and its children).
	usageFile, anon, file, inactiveFile := "memory.current", "anon", "file", "inactive_file"
	if _, err := os.Stat(filepath.Join(dir, usageFile)); err != nil {
		usageFile, anon, file, inactiveFile = "memory.usage_in_bytes", "total_rss", "total_cache", "total_inactive_file"
	}
	var m CgroupMemory
	data, err := os.ReadFile(filepath.Join(dir, usageFile))
	if err != nil {
		return m, err
	}
	if m.Usage, err = strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, usageFile), err)
	}
	if data, err = os.ReadFile(filepath.Join(dir, "memory.stat")); err != nil {
		return m, err
	}
	var inactive int64
	into := map[string]*int64{anon: &m.Anon, file: &m.File, inactiveFile: &inactive}
	found := 0
	for _, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(line, " ")
		if p := into[key]; ok && p != nil {
			if *p, err = strconv.ParseInt(value, 10, 64); err != nil {
				return m, fmt.Errorf("%s/memory.stat: %q: %w", dir, line, err)
			}
			found++
		}
	}
	if found != len(into) {
		return m, fmt.Errorf("%s/memory.stat lacks %s, %s or %s", dir, anon, file, inactiveFile)
	}
	// As the kubelet (cAdvisor) computes it: inactive file pages are the
	// first the kernel reclaims.
	m.WorkingSet = max(m.Usage-inactive, 0)
	return m, nil
}

// ContainerCPU returns the CPU time a container of the node has used, from
// its cgroup (v1's cpuacct.usage, or v2's cpu.stat), given its ID as a
// Pod's status reports it.
func ContainerCPU(containerID string) (time.Duration, error) {
	if dir, err := containerCgroup(containerID, "cpuacct"); err == nil {
		data, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
		if err == nil {
			ns, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s/cpuacct.usage: %w", dir, err)
			}
			return time.Duration(ns), nil
		}
		if !os.IsNotExist(err) {
			return 0, err
		}
	}
	dir, err := containerCgroup(containerID, "cpu")
	if err != nil {
		return 0, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if value, ok := strings.CutPrefix(line, "usage_usec "); ok {
			us, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s/cpu.stat: %q: %w", dir, line, err)
			}
			return time.Duration(us) * time.Microsecond, nil
		}
	}
	return 0, fmt.Errorf("%s/cpu.stat has no usage_usec", dir)
}
