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

// Package integration tests sim-apiserver registered with a real host
// control plane (etcd, kube-apiserver, kube-controller-manager) started once
// for the package by TestMain, driving it with kubectl and client-go.
package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

var (
	// cluster is shared by every test of the package; nil when skipped.
	cluster *framework.Cluster
	// skipReason says why cluster is nil.
	skipReason string
	// repoRoot holds artifacts/ and is kubectl's working directory.
	repoRoot string
)

var (
	simulatorsGVR = schema.GroupVersionResource{Group: framework.SimAPIGroup, Version: framework.SimAPIVersion, Resource: "simulators"}
)

// requestTimeout is sim-apiserver's request timeout: short, so that a test
// can show that proxied watches outlive it.
const requestTimeout = 10 * time.Second

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if repoRoot, err = framework.RepoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	start := time.Now()
	c, err := framework.StartCluster(ctx, framework.Options{
		SimAPIServerArgs: []string{
			"--request-timeout=" + requestTimeout.String(),
			// Fewer API Priority and Fairness seats than the watches of
			// TestWatchesDoNotHoldSeats (75 < 200), so a watch that held
			// its seat would show.
			"--max-requests-inflight=50", "--max-mutating-requests-inflight=25",
			// TestHosting hosts simulators in a second control plane.
			"--enable-hosting",
		},
	})
	cancel()
	switch {
	case errors.Is(err, framework.ErrMissingBinary) && !framework.InCI():
		skipReason = err.Error()
	case err != nil:
		fmt.Fprintf(os.Stderr, "starting host cluster: %v\n", err)
		return 1
	default:
		fmt.Fprintf(os.Stderr, "host cluster with sim-apiserver up in %v\n", time.Since(start).Round(time.Millisecond))
		cluster = c
		defer c.Stop()
	}
	code := m.Run()
	if code != 0 && cluster != nil {
		fmt.Fprintf(os.Stderr, "host cluster logs:\n%s", cluster.LogTails(50))
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

// kubectl runs the kubectl on PATH in the repository root against the
// shared cluster with kubeconfig and returns its stdout; a non-zero exit is
// an error carrying stderr.
func kubectl(t testing.TB, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	return kubectlWith(t, cluster, kubeconfig, args...)
}

// kubectlWith is kubectl for cluster c.
func kubectlWith(t testing.TB, c *framework.Cluster, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	return framework.Kubectl(t, c, kubeconfig, args...)
}
