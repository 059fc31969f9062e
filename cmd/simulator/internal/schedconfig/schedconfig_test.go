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
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2/ktesting"
)

const kubeconfig = "/data/admin.kubeconfig"

func TestNormalize(t *testing.T) {
	// JSON objects come out with sorted keys. conn is clientConnection's
	// fields, the kubeconfig's and rate's among them.
	withConn := func(conn string) string {
		return `{"apiVersion":"kubescheduler.config.k8s.io/v1","clientConnection":{` + conn + `},"kind":"KubeSchedulerConfiguration","leaderElection":{"leaderElect":false}`
	}
	// owned has the control plane's client rate, for a configuration
	// that sets none.
	owned := func() string { return withConn(`"burst":400,"kubeconfig":"/data/admin.kubeconfig","qps":200`) }
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "empty means defaults", in: " \n", want: owned() + "}"},
		{
			name: "YAML, owned fields forced, others kept",
			in: `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /somewhere/else
  qps: 70
leaderElection:
  leaderElect: true
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
`,
			want: withConn(`"kubeconfig":"/data/admin.kubeconfig","qps":70`) + `,"percentageOfNodesToScore":50,"profiles":[{"schedulerName":"default-scheduler"}]}`,
		},
		{
			name: "a burst alone keeps kube-scheduler's rate",
			in:   "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  burst: 10\n",
			want: withConn(`"burst":10,"kubeconfig":"/data/admin.kubeconfig"`) + "}",
		},
		{
			name: "JSON with big numbers kept exact",
			in:   `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","podMaxBackoffSeconds":9007199254740993}`,
			want: owned() + `,"podMaxBackoffSeconds":9007199254740993}`,
		},
		{
			name: "unknown fields are left for kube-scheduler's strict decoding",
			in:   `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","bogus":1}`,
			want: `{"apiVersion":"kubescheduler.config.k8s.io/v1","bogus":1` + strings.TrimPrefix(owned(), `{"apiVersion":"kubescheduler.config.k8s.io/v1"`) + "}",
		},
		{name: "wrong kind", in: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeletConfiguration\n", wantErr: "apiVersion must be kubescheduler.config.k8s.io/v1 and kind KubeSchedulerConfiguration"},
		{name: "old version", in: "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n", wantErr: "apiVersion must be"},
		{name: "no type", in: "percentageOfNodesToScore: 5\n", wantErr: "apiVersion must be"},
		{name: "duplicate key", in: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: 1\nparallelism: 2\n", wantErr: "not YAML or JSON"},
		{name: "not an object", in: "- a\n- b\n", wantErr: "not a YAML or JSON object"},
		{name: "garbage", in: "{{{", wantErr: "not YAML or JSON"},
		{name: "clientConnection not an object", in: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection: 3\n", wantErr: "clientConnection must be an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize([]byte(tc.in), kubeconfig)
			if tc.wantErr != "" {
				if !IsInvalid(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want an InvalidError containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("normalized (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFailureReason(t *testing.T) {
	tests := []struct{ name, output, want string }{
		{
			name: "klog command failed",
			output: `E1130 05:49:23.574422   14590 options.go:205] The manifest file is empty, ignoring.
E1130 05:49:23.577038   14590 run.go:72] "command failed" err="initializing profiles: ScorePlugin \"NoSuchPlugin\" does not exist"
`,
			want: `initializing profiles: ScorePlugin "NoSuchPlugin" does not exist`,
		},
		{
			name:   "anything else: last lines",
			output: "1\n2\n3\n4\n5\n6\nsomething went wrong\n",
			want:   "3\n4\n5\n6\nsomething went wrong",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := failureReason(tc.output); got != tc.want {
				t.Errorf("failureReason = %q, want %q", got, tc.want)
			}
		})
	}
}

// fakeChecker accepts configurations without "bad" in them.
type fakeChecker struct{ calls int }

func (f *fakeChecker) Check(_ context.Context, path string) ([]byte, error) {
	f.calls++
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.Contains(string(data), "bad") {
		return nil, &InvalidError{Reason: "bad"}
	}
	return append([]byte(`{"checked":true,"from":`), append(data, '}')...), nil
}

func TestStoreKeepsOldConfigurationOnRefusal(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "kube-scheduler.yaml")
	checker := &fakeChecker{}
	s := NewStore(path, kubeconfig, checker)
	if s.Effective() != nil {
		t.Fatal("Effective before any Set must be nil")
	}

	good := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: 4\n"
	effective, err := s.Set(ctx, []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(effective) || !strings.Contains(string(effective), `"checked":true`) {
		t.Fatalf("Set returned %s, want the checker's output", effective)
	}
	installed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(installed), `"parallelism":4`) || !strings.Contains(string(installed), kubeconfig) {
		t.Errorf("installed configuration %s lacks the user's or the owned fields", installed)
	}

	for _, bad := range []string{
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nschedulerName: bad\n",
		"kind: Nope\n",
	} {
		_, err = s.Set(ctx, []byte(bad))
		if !IsInvalid(err) {
			t.Fatalf("Set(%q) error = %v, want InvalidError", bad, err)
		}
		after, _ := os.ReadFile(path)
		if diff := cmp.Diff(string(installed), string(after)); diff != "" {
			t.Errorf("a refused configuration changed the installed file (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(string(effective), string(s.Effective())); diff != "" {
			t.Errorf("a refused configuration changed the effective one (-before +after):\n%s", diff)
		}
	}
	if checker.calls != 2 {
		t.Errorf("checker ran %d times, want 2 (a wrong kind is refused before the dry run)", checker.calls)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("data dir holds %d files, want only the configuration (no candidates left)", len(entries))
	}
}

func TestCheckerErrorIsNotInvalid(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	s := NewStore(filepath.Join(t.TempDir(), "c.yaml"), kubeconfig, DryRun{Binary: "/nonexistent/kube-scheduler"})
	_, err := s.Set(ctx, nil)
	if err == nil || IsInvalid(err) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want a non-InvalidError failure to run the dry run", err)
	}
}
