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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true), where nothing may be
// skipped for lack of binaries.
func InCI() bool { return os.Getenv("CI") == "true" }

// Skippable reports whether a StartCluster error may skip tests: missing
// tool binaries, or a node when not root; never under CI=true.
func Skippable(err error) bool {
	return !InCI() && (errors.Is(err, ErrMissingBinary) || errors.Is(err, ErrNeedsRoot))
}

// Start starts a cluster for a test and stops it in t.Cleanup, after
// logging the tail of every process log if the test failed. Without the
// tool binaries, or for a node when not root, the test is skipped, or fails
// under CI=true.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	c, err := StartCluster(t.Context(), opts)
	if Skippable(err) {
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatalf("starting host cluster: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("host cluster logs:\n%s", c.LogTails(50))
		}
		c.Stop()
	})
	return c
}

// Kubectl runs the kubectl on PATH against cluster c with kubeconfig (its
// admin kubeconfig when empty), in the repository root so that paths such as
// artifacts/examples work, and returns its stdout; a non-zero exit is an
// error carrying stderr. Without kubectl the test is skipped, or fails under
// CI=true.
func Kubectl(t testing.TB, c *Cluster, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		if InCI() {
			t.Fatalf("kubectl not found on PATH: %v", err)
		}
		t.Skipf("kubectl not found on PATH: %v", err)
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if kubeconfig == "" {
		kubeconfig = c.KubeconfigPath
	}
	all := append([]string{
		"--kubeconfig=" + kubeconfig,
		// Keep discovery caches out of $HOME and away from other runs.
		"--cache-dir=" + filepath.Join(c.Dir, "kubectl-cache"),
	}, args...)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), path, all...)
	cmd.Dir = root
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	t.Logf("kubectl %s", strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %w\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}
