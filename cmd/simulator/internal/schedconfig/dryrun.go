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

package schedconfig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// DryRun checks a configuration with a dry start of kube-scheduler.
type DryRun struct {
	// Binary is the kube-scheduler executable.
	Binary string
	// Timeout bounds one check; zero means 30s.
	Timeout time.Duration
}

var _ Checker = DryRun{}

// Check runs kube-scheduler --config=path --write-config-to=…: it exits 0
// after writing the completed configuration, or 1 naming what it refuses.
// Serving and leader election are off, and nothing is sent to the API
// server.
func (d DryRun) Check(ctx context.Context, path string) ([]byte, error) {
	timeout := d.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := os.CreateTemp(filepath.Dir(path), "kube-scheduler-effective-*.yaml")
	if err != nil {
		return nil, fmt.Errorf("creating the dry-run output: %w", err)
	}
	_ = out.Close()
	defer func() { _ = os.Remove(out.Name()) }()

	cmd := exec.CommandContext(ctx, d.Binary,
		"--config="+path,
		"--write-config-to="+out.Name(),
		"--secure-port=0",
		"--leader-elect=false",
	)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("kube-scheduler dry run: %w", ctx.Err())
	case errors.As(err, &exitErr) && exitErr.Exited():
		return nil, &InvalidError{Reason: failureReason(output.String())}
	case err != nil:
		return nil, fmt.Errorf("kube-scheduler dry run: %w", err)
	}
	written, err := os.ReadFile(out.Name())
	if err != nil {
		return nil, fmt.Errorf("reading the dry-run output: %w", err)
	}
	effective, err := yaml.YAMLToJSON(written)
	if err != nil {
		return nil, fmt.Errorf("converting the dry-run output: %w", err)
	}
	return effective, nil
}

// commandFailed matches the error kube-scheduler logs when it exits:
// … "command failed" err="<Go-quoted message>".
var commandFailed = regexp.MustCompile(`"command failed" err=("(?:[^"\\]|\\.)*")`)

// failureReason extracts why kube-scheduler refused to start from its
// output, or else returns the output's last lines.
func failureReason(output string) string {
	if m := commandFailed.FindAllStringSubmatch(output, -1); len(m) > 0 {
		if reason, err := strconv.Unquote(m[len(m)-1][1]); err == nil {
			return reason
		}
	}
	lines := strings.Split(strings.TrimSpace(output), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, "\n")
}
