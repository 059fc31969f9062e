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
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"
)

const (
	// versionFlag is the -X flag that stamps pkg/version.Version.
	versionFlag = modulePath + "/pkg/version.Version="

	// HTTPClientImageName, among Options.NodeImages, puts HTTPClientImage
	// on the node.
	HTTPClientImageName = "httpclient"
	// HTTPClientImage is the test client of test/images/httpclient, for
	// tests that make requests from a Pod (hack/build-images.sh tags it).
	HTTPClientImage = "sim.x-k8s.io/httpclient:test"
)

// buildImages runs hack/build-images.sh (which skips unchanged images) for
// images and returns the tarballs it wrote. The images are tagged with the
// version of the sim-apiserver binary, so that its default simulator image
// is the one the node has; without sim-apiserver the script's own default
// applies.
func buildImages(ctx context.Context, root, binDir, simAPIServer string, images []string) ([]string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(root, "hack", "build-images.sh"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BIN_DIR="+binDir, "IMAGES="+strings.Join(images, " "))
	if simAPIServer != "" {
		version, err := binaryVersion(simAPIServer)
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, "VERSION="+version)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("hack/build-images.sh: %w\n%s", err, stderr.String())
	}
	logger := klog.FromContext(ctx)
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		logger.V(2).Info("build-images: " + line)
	}
	var tarballs []string
	scanner := bufio.NewScanner(&stdout)
	for scanner.Scan() {
		if line := strings.TrimSpace(scanner.Text()); line != "" {
			tarballs = append(tarballs, line)
		}
	}
	return tarballs, nil
}

// binaryVersion returns the pkg/version.Version a binary was linked with,
// from the -ldflags in its build information; "dev" (the default) if none.
func binaryVersion(path string) (string, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the build information of %s: %w", path, err)
	}
	for _, setting := range info.Settings {
		if setting.Key != "-ldflags" {
			continue
		}
		if _, rest, ok := strings.Cut(setting.Value, versionFlag); ok {
			if fields := strings.Fields(rest); len(fields) > 0 {
				if version := strings.Trim(fields[0], `"'`); version != "" {
					return version, nil
				}
			}
		}
	}
	return "dev", nil
}
