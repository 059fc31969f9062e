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
	"strings"
)

// ContainerPIDs returns the processes of a container of the node, given
// its ID as a Pod's status reports it (containerd://<id>), from its cgroup.
func ContainerPIDs(containerID string) ([]int, error) {
	_, id, ok := strings.Cut(containerID, "://")
	if !ok {
		id = containerID
	}
	for _, hierarchy := range cgroupHierarchies() {
		dir := filepath.Join(hierarchy, containerdCgroupParent, id)
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err == nil {
			return cgroupProcs(dir), nil
		}
	}
	return nil, fmt.Errorf("no cgroup of container %s under %s", id, cgroupRoot)
}
