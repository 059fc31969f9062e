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
	"os"
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
