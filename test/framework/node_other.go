//go:build !linux

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
	"errors"
	"time"
)

// errNodeNeedsLinux: the node runs containerd, runc and a bridge.
var errNodeNeedsLinux = errors.New("a cluster with a node needs Linux")

type hostRecord struct{}

type nodeHost struct{ record hostRecord }

func acquireNodeHost(context.Context, *MachineLock, string, string, string) (*nodeHost, error) {
	return nil, errNodeNeedsLinux
}

// MachineLock needs Linux.
type MachineLock struct{}

// LockMachine needs Linux.
func LockMachine(context.Context) (*MachineLock, error) { return nil, errNodeNeedsLinux }

// Unlock needs Linux.
func (l *MachineLock) Unlock() {}

func setUpNodeNetwork(context.Context, *hostRecord) error { return errNodeNeedsLinux }

func (h *nodeHost) tearDown(context.Context) {}

// ContainerPIDs needs Linux.
func ContainerPIDs(string) ([]int, error) { return nil, errNodeNeedsLinux }

// RecoverNode has nothing to recover without Linux.
func RecoverNode(context.Context) error { return nil }

// MachineState needs Linux.
type MachineState struct{}

// SnapshotMachine needs Linux.
func SnapshotMachine() (*MachineState, error) { return nil, errNodeNeedsLinux }

// Diff needs Linux.
func (s *MachineState) Diff(*MachineState) string { return "" }

// ContainerMemoryLimit needs Linux.
func ContainerMemoryLimit(string) (int64, error) { return 0, errNodeNeedsLinux }

// ContainerMemory needs Linux.
func ContainerMemory(string) (CgroupMemory, error) { return CgroupMemory{}, errNodeNeedsLinux }

// ContainerCPU needs Linux.
func ContainerCPU(string) (time.Duration, error) { return 0, errNodeNeedsLinux }
