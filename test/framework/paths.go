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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// Names of the binaries the framework runs.
const (
	etcdBinary                  = "etcd"
	kubeAPIServerBinary         = "kube-apiserver"
	kubeControllerManagerBinary = "kube-controller-manager"
	kubeSchedulerBinary         = "kube-scheduler"
	kubeletBinary               = "kubelet"
	kubeProxyBinary             = "kube-proxy"
	simAPIServerBinary          = "sim-apiserver"
)

// BinDirEnv overrides where the framework looks for binaries; the default is
// _output/bin in the repository root.
const BinDirEnv = "SIM_BIN_DIR"

// ErrMissingBinary is wrapped by the error StartCluster returns when a
// pinned tool (etcd, kube-apiserver, ...) is missing or older than
// hack/tools says: `make tools` builds them.
var ErrMissingBinary = errors.New("run `make tools`")

// RepoRoot returns the root of the repository: the first directory at or
// above the working directory that holds a go.mod of this module.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("getting working directory: %w", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && isRootModule(data) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of module %s at or above the working directory", modulePath)
		}
		dir = parent
	}
}

// BinDir returns the directory holding the binaries: $SIM_BIN_DIR or
// _output/bin in the repository root. Binaries makes them current.
func BinDir() (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		return filepath.Abs(dir)
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "_output", "bin"), nil
}

var binaries struct {
	once sync.Once
	dir  string
	err  error
}

// Binaries returns BinDir once every binary a test runs there is current,
// under one rule: this tree's own (sim-apiserver, simulator, sim-scheduler)
// are built from the tree by hack/build.sh, which relinks only what changed
// (about a second when nothing did), and the pinned tools must be what
// hack/tools says, or the error wraps ErrMissingBinary and names them stale.
// A test never runs a binary older than the code it tests. Once per test
// binary.
func Binaries(ctx context.Context) (string, error) {
	binaries.once.Do(func() {
		binaries.dir, binaries.err = buildBinaries(ctx)
	})
	return binaries.dir, binaries.err
}

func buildBinaries(ctx context.Context) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	dir, err := BinDir()
	if err != nil {
		return "", err
	}
	logger := klog.FromContext(ctx)
	check := exec.CommandContext(ctx, filepath.Join(root, "hack", "build-tools.sh"))
	check.Dir = root
	check.Env = append(os.Environ(), "BIN_DIR="+dir, "CHECK=true")
	if out, err := check.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %w", strings.TrimSpace(string(out)), ErrMissingBinary)
	}
	start := time.Now()
	build := exec.CommandContext(ctx, filepath.Join(root, "hack", "build.sh"))
	build.Dir = root
	build.Env = append(os.Environ(), "BIN_DIR="+dir)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("hack/build.sh: %w\n%s", err, out)
	}
	logger.V(1).Info("This tree's binaries are current", "binDir", dir, "elapsed", time.Since(start))
	return dir, nil
}

// findTool returns the path of a binary in the bin directory, or an error
// wrapping ErrMissingBinary.
func findTool(binDir, name string) (string, error) {
	path := filepath.Join(binDir, name)
	info, err := os.Stat(path)
	if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s in %s: not found: %w", name, binDir, ErrMissingBinary)
	}
	return path, nil
}

// modulePath is the path of the root module, told apart from hack/tools.
const modulePath = "sigs.k8s.io/simulator-apiserver"

func isRootModule(goMod []byte) bool {
	for _, line := range strings.Split(string(goMod), "\n") {
		if fields := strings.Fields(line); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath
		}
	}
	return false
}
