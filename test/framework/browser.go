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
	"os/exec"
	"path/filepath"
)

// BrowserPackage is the Debian package of the browser the web view's test
// drives: Debian's Chromium, installed as the node's packages are, never a
// browser vendor's download.
const BrowserPackage = "chromium"

// InstallBrowser installs BrowserPackage when it is missing
// (hack/node/install-deps.sh chromium, as root; nothing to do once it is
// there) and returns the path of its command.
func InstallBrowser(ctx context.Context) (string, error) {
	if path, err := exec.LookPath(BrowserPackage); err == nil {
		return path, nil
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("the Debian package %s is missing, and installing it needs root (running as uid %d)", BrowserPackage, os.Geteuid())
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	if _, err := runCommand(ctx, filepath.Join(root, "hack", "node", "install-deps.sh"), BrowserPackage); err != nil {
		return "", fmt.Errorf("installing %s: %w", BrowserPackage, err)
	}
	path, err := exec.LookPath(BrowserPackage)
	if err != nil {
		return "", fmt.Errorf("%s installed, yet its command is not on PATH: %w", BrowserPackage, err)
	}
	return path, nil
}
