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
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/klog/v2"
)

// RunWithNode is the TestMain of a package whose tests share one cluster
// with a node. The machine is held from the first snapshot to the last: the
// node's packages are installed and what a killed run left is undone
// before, and no other cluster with a node changes it in between. It starts
// the cluster with opts (holding the machine's lock) within timeout and
// hands it to use before m runs; when the tests may skip (see Skippable),
// use gets a nil cluster and the reason. It returns m's exit code, or 1
// when the cluster does not start or the machine differs after it stopped.
func RunWithNode(m *testing.M, opts Options, timeout time.Duration, use func(c *Cluster, skipReason string)) int {
	lock, err := LockMachine(context.Background())
	switch {
	case Skippable(err):
		use(nil, err.Error())
		return m.Run()
	case err != nil:
		fmt.Fprintf(os.Stderr, "taking the machine for a cluster with a node: %v\n", err)
		return 1
	}
	defer lock.Unlock()
	before, err := SnapshotMachine()
	if err != nil {
		fmt.Fprintf(os.Stderr, "reading the machine's state: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(klog.NewContext(context.Background(), klog.Background()), timeout)
	start := time.Now()
	opts.WithNode, opts.MachineLock = true, lock
	c, err := StartCluster(ctx, opts)
	cancel()
	switch {
	case Skippable(err):
		use(nil, err.Error())
		return m.Run()
	case err != nil:
		fmt.Fprintf(os.Stderr, "starting host cluster with a node: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "host cluster with node %s up in %v\n", c.NodeName, time.Since(start).Round(time.Millisecond))
	use(c, "")

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
	after, err := SnapshotMachine()
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
