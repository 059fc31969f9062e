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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// Where a cluster with a node keeps, outside its own state directory, the
// lock that allows one such cluster per machine and the record of what it
// changed on the machine.
const (
	hostStateDir   = "/run/simulator-apiserver"
	hostLockFile   = hostStateDir + "/node.lock"
	hostRecordFile = hostStateDir + "/node.json"

	// NodeLockWaitEnv names the variable that makes a cluster with a node
	// wait (a Go duration) for the one that holds the machine.
	NodeLockWaitEnv = "SIM_NODE_LOCK_WAIT"
)

// restoredSysctls are the kernel settings a node changes: the CNI bridge
// plugin turns on forwarding (isGateway), the kubelet sets its kernel
// tunables; kube-proxy is configured to change none, route_localnet is for
// safety. Teardown writes back the values found at start; a setting the
// kernel does not have is skipped.
var restoredSysctls = []string{
	"net/ipv4/ip_forward",
	"net/ipv4/conf/all/route_localnet",
	"vm/overcommit_memory",
	"vm/panic_on_oom",
	"kernel/panic",
	"kernel/panic_on_oops",
	"kernel/keys/root_maxkeys",
	"kernel/keys/root_maxbytes",
}

// Paths containerd v1.6 uses whatever its configuration says: shim sockets.
const (
	runContainerdDir = "/run/containerd"
	shimSocketDir    = runContainerdDir + "/s"
)

// kubeletFixedDirs are the directories the kubelet uses whatever its root
// directory, parents last: its device plugin socket and checkpoint go in a
// path compiled into it. Teardown removes those that did not exist before
// the start: the first with what the kubelet put in it, the others if empty.
var kubeletFixedDirs = []string{"/var/lib/kubelet/device-plugins", "/var/lib/kubelet"}

// hostRecord is what a node changes on the machine outside its directory and
// what was there before, written before any change is made so that a later
// run can undo the changes of one that crashed.
type hostRecord struct {
	// PID is the process that made the changes.
	PID int `json:"pid"`
	// Dir is the node's state directory: containerd's root and state, the
	// kubelet's root, CNI state. Every mount under it is the node's.
	Dir string `json:"dir"`
	// RemoveDir is a temporary directory (the cluster's) to remove once the
	// node is cleaned up after a crash; empty to keep it.
	RemoveDir string `json:"removeDir,omitempty"`
	// ContainerdSocket identifies the node's containerd shims.
	ContainerdSocket string `json:"containerdSocket"`
	// Bridge is the CNI bridge, created by the framework.
	Bridge string `json:"bridge"`
	// Sysctls are the values of restoredSysctls before the start.
	Sysctls map[string]string `json:"sysctls"`
	// IPTablesTables are the tables that existed before the start, as
	// "<command> <table>"; IPTablesChains their chains then.
	IPTablesTables []string            `json:"iptablesTables"`
	IPTablesChains map[string][]string `json:"iptablesChains"`
	// RunContainerdExisted tells whether /run/containerd existed; ShimSockets
	// are the entries of /run/containerd/s then.
	RunContainerdExisted bool     `json:"runContainerdExisted"`
	ShimSockets          []string `json:"shimSockets"`
	// KubeletDirsAbsent are the kubeletFixedDirs that did not exist.
	KubeletDirsAbsent []string `json:"kubeletDirsAbsent"`
	// CgroupParents are the k8s.io cgroup directories (containerd's default
	// parent) that existed before the start.
	CgroupParents []string `json:"cgroupParents"`
}

// nodeHost holds the machine for one node: the lock and the record.
type nodeHost struct {
	lock *os.File
	// borrowed: the lock is the caller's (Options.MachineLock), who
	// releases it.
	borrowed bool
	record   hostRecord
}

// MachineLock is the machine-wide lock of clusters with a node, held by a
// test (LockMachine).
type MachineLock struct {
	file *os.File
}

// LockMachine installs the node's packages, takes the machine-wide lock of
// clusters with a node (waiting as NodeLockWaitEnv says) and undoes what
// one that did not stop left. A test that compares the machine before and
// after a cluster with a node takes both snapshots while it holds the lock
// and passes it in Options.MachineLock: the packages' installation comes
// before, and no other cluster with a node (another test run) changes the
// machine in between. Unlock releases it.
func LockMachine(ctx context.Context) (*MachineLock, error) {
	if err := InstallNodePackages(ctx); err != nil {
		return nil, err
	}
	lock, err := lockHost()
	if err != nil {
		return nil, err
	}
	if err := recoverHost(ctx); err != nil {
		releaseHost(lock)
		return nil, err
	}
	return &MachineLock{file: lock}, nil
}

// Unlock releases the machine.
func (l *MachineLock) Unlock() {
	releaseHost(l.file)
}

// releaseHost releases the lock, and removes it unless a record is left
// for the next run to retry its cleanup with.
func releaseHost(lock *os.File) {
	if _, err := os.Stat(hostRecordFile); err == nil {
		_ = lock.Close()
	} else {
		unlockHost(lock)
	}
}

// acquireNodeHost takes the machine-wide lock for a node unless held is
// the caller's, undoes what a previous run that did not stop left behind,
// and records the state of the machine before this node changes it.
func acquireNodeHost(ctx context.Context, held *MachineLock, dir, removeDir, containerdSocket string) (_ *nodeHost, retErr error) {
	h := &nodeHost{}
	if held != nil {
		h.lock, h.borrowed = held.file, true
	} else {
		lock, err := lockHost()
		if err != nil {
			return nil, err
		}
		h.lock = lock
		defer func() {
			if retErr != nil {
				releaseHost(lock)
			}
		}()
	}
	if err := recoverHost(ctx); err != nil {
		return nil, err
	}

	record := hostRecord{
		PID:              os.Getpid(),
		Dir:              dir,
		RemoveDir:        removeDir,
		ContainerdSocket: containerdSocket,
		Bridge:           nodeBridge,
		Sysctls:          map[string]string{},
	}
	for _, key := range restoredSysctls {
		value, err := os.ReadFile(filepath.Join("/proc/sys", key))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading sysctl %s: %w", key, err)
		}
		record.Sysctls[key] = strings.TrimSpace(string(value))
	}
	var err error
	if record.IPTablesTables, err = iptablesTablesPresent(ctx); err != nil {
		return nil, err
	}
	if record.IPTablesChains, err = iptablesChains(ctx); err != nil {
		return nil, err
	}
	if _, err := os.Stat(runContainerdDir); err == nil {
		record.RunContainerdExisted = true
	}
	record.ShimSockets = dirEntries(shimSocketDir)
	for _, dir := range kubeletFixedDirs {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			record.KubeletDirsAbsent = append(record.KubeletDirsAbsent, dir)
		}
	}
	for _, hierarchy := range cgroupHierarchies() {
		parent := filepath.Join(hierarchy, containerdCgroupParent)
		if _, err := os.Stat(parent); err == nil {
			record.CgroupParents = append(record.CgroupParents, parent)
		}
	}
	if err := writeHostRecord(&record); err != nil {
		return nil, err
	}
	h.record = record
	return h, nil
}

// RecoverNode undoes what a cluster with a node that did not stop (killed,
// crashed) left on the machine, if anything; StartCluster does it too, but
// a caller that wipes the old cluster's directory must do it first. It
// fails if a cluster with a node is running.
func RecoverNode(ctx context.Context) error {
	if os.Geteuid() != 0 {
		if _, err := os.Stat(hostRecordFile); err != nil {
			return nil // nothing to recover, and no right to
		}
		return fmt.Errorf("%w: to clean up after the node in %s", ErrNeedsRoot, hostRecordFile)
	}
	lock, err := lockHost()
	if err != nil {
		return err
	}
	defer unlockHost(lock)
	return recoverHost(ctx)
}

// lockHost takes the machine-wide lock of clusters with a node, held until
// unlockHost (or the end of the process).
// With NodeLockWaitEnv set to a duration it waits that long for the holder
// to stop, so that several test runs on one machine queue instead of failing.
func lockHost() (*os.File, error) {
	var waitUntil time.Time
	if value := os.Getenv(NodeLockWaitEnv); value != "" {
		wait, err := time.ParseDuration(value)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: %w", NodeLockWaitEnv, value, err)
		}
		waitUntil = time.Now().Add(wait)
	}
	waited := false
	for {
		if err := os.MkdirAll(hostStateDir, 0o755); err != nil {
			return nil, fmt.Errorf("creating %s: %w", hostStateDir, err)
		}
		lock, err := os.OpenFile(hostLockFile, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", hostLockFile, err)
		}
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			_ = lock.Close()
			owner := "another process"
			if previous, err := readHostRecord(); err == nil && previous != nil {
				owner = fmt.Sprintf("process %d (state in %s)", previous.PID, previous.Dir)
			}
			if time.Now().Before(waitUntil) {
				if !waited {
					klog.Background().Info("Waiting for the cluster with a node that holds this machine", "owner", owner, "lock", hostLockFile, "env", NodeLockWaitEnv)
					waited = true
				}
				time.Sleep(2 * time.Second)
				continue
			}
			return nil, fmt.Errorf("a cluster with a node is already running on this machine, started by %s: stop it first (lock %s; %s=<duration> waits for it): %w", owner, hostLockFile, NodeLockWaitEnv, err)
		}
		// The holder removes the file when it is done (unlockHost): the
		// lock counts only if it is still the file at the path.
		var held, current syscall.Stat_t
		if syscall.Fstat(int(lock.Fd()), &held) == nil && syscall.Stat(hostLockFile, &current) == nil && held.Ino == current.Ino {
			return lock, nil
		}
		_ = lock.Close()
	}
}

// unlockHost removes the lock file, and the directory if empty, then
// releases the lock: nothing of the node is left on the machine.
func unlockHost(lock *os.File) {
	_ = os.Remove(hostLockFile)
	_ = os.Remove(hostStateDir)
	_ = lock.Close()
}

// recoverHost, with the lock held, undoes the changes of the record left by
// a cluster that did not stop, and removes the record.
func recoverHost(ctx context.Context) error {
	previous, err := readHostRecord()
	if err != nil || previous == nil {
		return err
	}
	klog.FromContext(ctx).Info("Cleaning up after a cluster with a node that did not stop", "pid", previous.PID, "dir", previous.Dir)
	if err := cleanUpHost(ctx, previous); err != nil {
		return fmt.Errorf("cleaning up after the node of process %d: %w", previous.PID, err)
	}
	if previous.RemoveDir != "" {
		if err := os.RemoveAll(previous.RemoveDir); err != nil {
			return fmt.Errorf("removing the state of the node of process %d: %w", previous.PID, err)
		}
	}
	if err := os.Remove(hostRecordFile); err != nil {
		return fmt.Errorf("removing %s: %w", hostRecordFile, err)
	}
	return nil
}

// tearDown undoes what the node changed on the machine and releases it,
// unless the lock is the caller's.
func (h *nodeHost) tearDown(ctx context.Context) {
	logger := klog.FromContext(ctx)
	if err := cleanUpHost(ctx, &h.record); err != nil {
		// Keep the record: the next run tries again.
		logger.Error(err, "Cleaning up the node's changes to the machine; the next cluster with a node retries", "record", hostRecordFile)
	} else if err := os.Remove(hostRecordFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		logger.Error(err, "Removing the node's record", "record", hostRecordFile)
	}
	if !h.borrowed {
		releaseHost(h.lock)
	}
}

// cleanUpHost undoes what the node of record changed: its leftover
// containers and shims, mounts under its directory, iptables chains, kernel
// settings, the bridge, shim sockets and cgroups. Safe to repeat.
func cleanUpHost(ctx context.Context, record *hostRecord) error {
	logger := klog.FromContext(ctx)
	var errs []error
	if n := killProcessesWithArg(record.ContainerdSocket); n > 0 {
		logger.Info("Killed leftover containerd shims", "count", n)
	}
	if err := removeContainerCgroups(ctx, record); err != nil {
		errs = append(errs, err)
	}
	if err := unmountUnder(record.Dir); err != nil {
		errs = append(errs, err)
	}
	if err := removeNewIPTablesChains(ctx, record.IPTablesChains); err != nil {
		errs = append(errs, err)
	} else if err := removeNewIPTablesTables(ctx, record.IPTablesTables); err != nil {
		errs = append(errs, err)
	}
	for key, value := range record.Sysctls {
		if err := os.WriteFile(filepath.Join("/proc/sys", key), []byte(value+"\n"), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restoring sysctl %s=%s: %w", key, value, err))
		}
	}
	if err := deleteLink(ctx, record.Bridge); err != nil {
		errs = append(errs, err)
	}
	for _, name := range dirEntries(shimSocketDir) {
		if !slices.Contains(record.ShimSockets, name) {
			if err := os.Remove(filepath.Join(shimSocketDir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("removing shim socket: %w", err))
			}
		}
	}
	if !record.RunContainerdExisted {
		// Only if empty: something else may have started using it.
		_ = os.Remove(shimSocketDir)
		_ = os.Remove(runContainerdDir)
	}
	for i, dir := range kubeletFixedDirs {
		switch {
		case !slices.Contains(record.KubeletDirsAbsent, dir):
		case i == 0:
			if err := os.RemoveAll(dir); err != nil {
				errs = append(errs, fmt.Errorf("removing %s, created by the kubelet: %w", dir, err))
			}
		default:
			_ = os.Remove(dir) // only if empty, as for /run/containerd
		}
	}
	return errors.Join(errs...)
}

func readHostRecord() (*hostRecord, error) {
	data, err := os.ReadFile(hostRecordFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", hostRecordFile, err)
	}
	var record hostRecord
	if err := json.Unmarshal(data, &record); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", hostRecordFile, err)
	}
	return &record, nil
}

func writeHostRecord(record *hostRecord) error {
	data, err := json.MarshalIndent(record, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the node's record: %w", err)
	}
	tmp := hostRecordFile + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, hostRecordFile); err != nil {
		return fmt.Errorf("writing %s: %w", hostRecordFile, err)
	}
	return nil
}

// dirEntries returns the names in dir; none if it does not exist.
func dirEntries(dir string) []string {
	entries, _ := os.ReadDir(dir)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
