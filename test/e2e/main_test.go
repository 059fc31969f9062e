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
	"os"
	"testing"
	"time"

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
	return framework.RunWithNode(m, framework.Options{
		// For the attacks from a Pod (TestSimulatorFromAnotherNamespacesPod).
		NodeImages: []string{framework.HTTPClientImageName},
		// TestHostedSimulator hosts a simulator in the cluster itself,
		// through a kubeconfig with rights in one namespace.
		SimAPIServerArgs: []string{"--enable-hosting"},
	}, startTimeout, func(c *framework.Cluster, reason string) { cluster, skipReason = c, reason })
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
