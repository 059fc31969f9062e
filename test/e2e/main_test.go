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

// Package e2e tests simulator-apiserver end to end on a host cluster with a
// real node (kubelet, containerd, runc, a CNI bridge), started once for the
// package by TestMain: simulator Pods really run, from images built from this
// tree. It needs root; without it (or without the tool binaries) the tests
// skip, except under CI=true, where they fail.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

var (
	// cluster is shared by every test of the package; nil when skipped.
	cluster *framework.Cluster
	// skipReason says why cluster is nil.
	skipReason string
)

// startTimeout bounds the start, which builds the images when they changed.
const startTimeout = 10 * time.Minute

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// The machine is held from the first snapshot to the last: the node's
	// packages are installed and what a killed run left is undone before,
	// and no other cluster with a node changes it in between.
	lock, err := framework.LockMachine(context.Background())
	switch {
	case framework.Skippable(err):
		skipReason = err.Error()
		return m.Run()
	case err != nil:
		fmt.Fprintf(os.Stderr, "taking the machine for a cluster with a node: %v\n", err)
		return 1
	}
	defer lock.Unlock()
	before, err := framework.SnapshotMachine()
	if err != nil {
		fmt.Fprintf(os.Stderr, "reading the machine's state: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(klog.NewContext(context.Background(), klog.Background()), startTimeout)
	start := time.Now()
	c, err := framework.StartCluster(ctx, framework.Options{
		WithNode: true, MachineLock: lock,
		// For the attacks from a Pod (TestSimulatorFromAnotherNamespacesPod).
		NodeImages: []string{framework.HTTPClientImageName},
	})
	cancel()
	switch {
	case framework.Skippable(err):
		skipReason = err.Error()
		return m.Run()
	case err != nil:
		fmt.Fprintf(os.Stderr, "starting host cluster with a node: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "host cluster with node %s and sim-apiserver up in %v\n", c.NodeName, time.Since(start).Round(time.Millisecond))
	cluster = c

	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "host cluster logs:\n%s", c.LogTails(50))
	}
	stopStart := time.Now()
	c.Stop()
	fmt.Fprintf(os.Stderr, "host cluster stopped in %v\n", time.Since(stopStart).Round(time.Millisecond))

	// The node's teardown must leave the machine as it found it.
	if _, err := os.Stat(c.Dir); err == nil {
		fmt.Fprintf(os.Stderr, "FAIL: the cluster's directory %s is left after it stopped\n", c.Dir)
		return 1
	}
	after, err := framework.SnapshotMachine()
	if err != nil {
		fmt.Fprintf(os.Stderr, "reading the machine's state: %v\n", err)
		return 1
	}
	if diff := before.Diff(after); diff != "" {
		fmt.Fprintf(os.Stderr, "FAIL: the machine differs after the cluster stopped:\n%s", diff)
		return 1
	}
	return code
}

// hostCluster returns the shared cluster or skips the test (never under
// CI=true: TestMain fails instead).
func hostCluster(t testing.TB) *framework.Cluster {
	t.Helper()
	if cluster == nil {
		t.Skip(skipReason)
	}
	return cluster
}

// kubectl runs the kubectl on PATH in the repository root as the cluster's
// admin and returns its stdout; a non-zero exit is an error carrying stderr.
func kubectl(t testing.TB, args ...string) (string, error) {
	t.Helper()
	return framework.Kubectl(t, hostCluster(t), "", args...)
}
