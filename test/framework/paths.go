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

// ErrMissingBinary is wrapped by the error StartCluster returns when a tool
// binary (etcd, kube-apiserver, ...) has not been built.
var ErrMissingBinary = errors.New("binary not found; run `make tools`")

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

// BinDir returns the directory holding the tool binaries: $SIM_BIN_DIR or
// _output/bin in the repository root.
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

// findTool returns the path of a tool binary in the bin directory, or an
// error wrapping ErrMissingBinary.
func findTool(binDir, name string) (string, error) {
	path := filepath.Join(binDir, name)
	info, err := os.Stat(path)
	if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s in %s: %w", name, binDir, ErrMissingBinary)
	}
	return path, nil
}

// simAPIServerPath returns the sim-apiserver binary from the bin directory
// (what `make build` produces) or, if it is missing, builds it into dir.
func simAPIServerPath(ctx context.Context, binDir, dir string) (string, error) {
	if path, err := findTool(binDir, simAPIServerBinary); err == nil {
		return path, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, simAPIServerBinary)
	klog.FromContext(ctx).Info("Building sim-apiserver, `make build` did not", "binDir", binDir, "output", path)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", path, "./cmd/sim-apiserver")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/sim-apiserver: %w\n%s", err, out)
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
