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
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/klog/v2/ktesting"
)

// kubeScheduler finds the pinned kube-scheduler of `make tools`.
func kubeScheduler(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	bin := filepath.Join(dir, "_output", "bin", "kube-scheduler")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: run make tools", bin)
		}
		t.Skip("run make tools")
	}
	return bin
}

const header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

// unreachableKubeconfig is a kubeconfig of a server that is not there: the
// dry run must not need one.
const unreachableKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: x}
`

func TestDryRunWithKubeScheduler(t *testing.T) {
	bin := kubeScheduler(t)
	kubeconfig := filepath.Join(t.TempDir(), "admin.kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(unreachableKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// config follows the header.
		config string
		// wantReason is in the refusal; empty means accepted.
		wantReason string
		// wantEffective are JSON fragments of the completed configuration.
		wantEffective []string
	}{
		{
			name:          "defaults",
			wantEffective: []string{`"parallelism":16`, `"schedulerName":"default-scheduler"`, `"leaderElect":false`, `"kubeconfig":"` + kubeconfig + `"`},
		},
		{
			name: "a profile without a score plugin, and a second profile",
			config: `percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: ImageLocality
- schedulerName: bin-packing
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`,
			wantEffective: []string{`"percentageOfNodesToScore":50`, `"schedulerName":"bin-packing"`, `"type":"MostAllocated"`},
		},
		{name: "value out of range", config: "percentageOfNodesToScore: 200\n", wantReason: "percentageOfNodesToScore: Invalid value: 200"},
		{name: "unknown field", config: "bogus: 1\n", wantReason: `unknown field "bogus"`},
		{name: "wrong type", config: "parallelism: many\n", wantReason: "parallelism"},
		{
			name:       "unknown plugin",
			config:     "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      enabled:\n      - name: NoSuchPlugin\n",
			wantReason: `"NoSuchPlugin" does not exist`,
		},
		{
			name:       "bad plugin arguments",
			config:     "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: Nope\n",
			wantReason: `scoringStrategy.type: Unsupported value: "Nope"`,
		},
		{
			name:       "duplicate profile",
			config:     "profiles:\n- schedulerName: a\n- schedulerName: a\n",
			wantReason: "Duplicate value",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			s := NewStore(filepath.Join(t.TempDir(), "kube-scheduler.yaml"), kubeconfig, DryRun{Binary: bin})
			effective, err := s.Set(ctx, []byte(header+tc.config))
			if tc.wantReason != "" {
				var invalid *InvalidError
				if !errors.As(err, &invalid) {
					t.Fatalf("error = %v, want an InvalidError", err)
				}
				if !strings.Contains(invalid.Reason, tc.wantReason) {
					t.Errorf("reason %q does not contain %q", invalid.Reason, tc.wantReason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(effective) {
				t.Fatalf("effective configuration is not JSON: %s", effective)
			}
			for _, frag := range tc.wantEffective {
				if !strings.Contains(string(effective), frag) {
					t.Errorf("effective configuration lacks %s:\n%s", frag, effective)
				}
			}
		})
	}
}

// TestDryRunRoundTrip checks that what GET answers can be PUT back: a
// client edits the configuration in effect.
func TestDryRunRoundTrip(t *testing.T) {
	bin := kubeScheduler(t)
	_, ctx := ktesting.NewTestContext(t)
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(unreachableKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewStore(filepath.Join(dir, "kube-scheduler.yaml"), kubeconfig, DryRun{Binary: bin})
	first, err := s.Set(ctx, []byte(header+"profiles:\n- schedulerName: a\n- schedulerName: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Set(ctx, first)
	if err != nil {
		t.Fatalf("the completed configuration is refused: %v", err)
	}
	if string(first) != string(second) {
		t.Errorf("the completed configuration changed on a round trip:\n%s\n%s", first, second)
	}
}
