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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// containerdCgroupParent is where containerd puts the cgroups of containers
// whose parent the kubelet leaves empty (cgroupsPerQOS: false): in every
// hierarchy, k8s.io/<container id>, after the CRI namespace.
const containerdCgroupParent = "k8s.io"

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupHierarchies returns the mounted cgroup hierarchies: the root itself
// on a unified (v2) machine, each controller's (and the hybrid unified one)
// on a v1 machine.
func cgroupHierarchies() []string {
	if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil {
		return []string{cgroupRoot}
	}
	var hierarchies []string
	for _, name := range dirEntries(cgroupRoot) {
		dir := filepath.Join(cgroupRoot, name)
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err == nil {
			hierarchies = append(hierarchies, dir)
		}
	}
	return hierarchies
}

// removeContainerCgroups kills every process left in the node's container
// cgroups and removes them, and the k8s.io parents the node created. The
// node's containers are all of k8s.io when the node created it, else those
// its containerd has task state for.
func removeContainerCgroups(ctx context.Context, record *hostRecord) error {
	ours := dirEntries(containerdTaskDir(record.Dir))
	var errs []error
	for _, hierarchy := range cgroupHierarchies() {
		parent := filepath.Join(hierarchy, containerdCgroupParent)
		if _, err := os.Stat(parent); err != nil {
			continue
		}
		created := !slices.Contains(record.CgroupParents, parent)
		for _, id := range dirEntries(parent) {
			dir := filepath.Join(parent, id)
			if info, err := os.Stat(dir); err != nil || !info.IsDir() || (!created && !slices.Contains(ours, id)) {
				continue
			}
			if err := removeCgroup(ctx, dir); err != nil {
				errs = append(errs, err)
			}
		}
		if created {
			if err := syscall.Rmdir(parent); err != nil && !errors.Is(err, syscall.ENOENT) {
				errs = append(errs, fmt.Errorf("removing cgroup %s: %w", parent, err))
			}
		}
	}
	return errors.Join(errs...)
}

// removeCgroup kills the processes of a cgroup and its children, then
// removes them, deepest first.
func removeCgroup(ctx context.Context, dir string) error {
	var dirs []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, d := range dirs {
		deadline := time.Now().Add(10 * time.Second)
		for {
			pids := cgroupProcs(d)
			if len(pids) == 0 {
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("processes %v of cgroup %s do not die", pids, d)
			}
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) {
			return fmt.Errorf("removing cgroup %s: %w", d, err)
		}
	}
	return nil
}

func cgroupProcs(dir string) []int {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, field := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(field); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killProcessesWithArg kills (SIGKILL) every process with arg among its
// command line arguments, waits until they are dead, and returns how many
// it found.
func killProcessesWithArg(arg string) int {
	var killed []int
	self := os.Getpid()
	for _, name := range dirEntries("/proc") {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", name, "cmdline"))
		if err != nil {
			continue
		}
		if slices.Contains(strings.Split(string(bytes.TrimRight(cmdline, "\x00")), "\x00"), arg) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed = append(killed, pid)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range killed {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return len(killed)
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// unmountUnder unmounts (lazily) every mount at or under dir, deepest first.
func unmountUnder(dir string) error {
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	for range 5 {
		mounts, err := mountsUnder(dir)
		if err != nil || len(mounts) == 0 {
			return err
		}
		for _, m := range mounts {
			if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
				return fmt.Errorf("unmounting %s: %w", m, err)
			}
		}
	}
	mounts, err := mountsUnder(dir)
	if err == nil && len(mounts) > 0 {
		err = fmt.Errorf("mounts left under %s: %v", dir, mounts)
	}
	return err
}

// mountsUnder returns the mount points at or under dir, deepest first.
func mountsUnder(dir string) ([]string, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("reading mounts: %w", err)
	}
	var mounts []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		point := unescapeMountPoint(fields[4])
		if point == dir || strings.HasPrefix(point, dir+"/") {
			mounts = append(mounts, point)
		}
	}
	sort.SliceStable(mounts, func(i, j int) bool {
		return strings.Count(mounts[i], "/") > strings.Count(mounts[j], "/")
	})
	return slices.Compact(mounts), nil
}

// unescapeMountPoint undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPoint(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// deleteLink deletes a network interface if it exists.
func deleteLink(ctx context.Context, name string) error {
	if _, err := os.Stat(filepath.Join("/sys/class/net", name)); err != nil {
		return nil
	}
	_, err := runCommand(ctx, "ip", "link", "delete", name)
	return err
}
