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

package command

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

func TestPrintImportStatus(t *testing.T) {
	start := time.Date(2026, 12, 4, 13, 0, 0, 0, time.UTC)
	end := start.Add(2500 * time.Millisecond)
	for _, tc := range []struct {
		name   string
		status contract.ImportStatus
		want   string
	}{{
		name: "done: a row per resource, by name",
		status: contract.ImportStatus{Phase: contract.ImportSucceeded, StartTime: &start, CompletionTime: &end, Resources: map[string]contract.ImportCounts{
			"pods":       {Total: 2, Created: 2},
			"namespaces": {Total: 4, Skipped: 4},
			"nodes":      {Total: 3, Existing: 3},
		}},
		want: `Import Succeeded in 2.5s
RESOURCE     TOTAL   CREATED   EXISTING   SKIPPED   FAILED
namespaces   4       0         0          4         0
nodes        3       0         3          0         0
pods         2       2         0          0         0
`,
	}, {
		name: "failed: the last error",
		status: contract.ImportStatus{Phase: contract.ImportFailed, LastError: "pods \"x\": the server said no\x1b[2J",
			Resources: map[string]contract.ImportCounts{"pods": {Total: 1, Failed: 1}}},
		want: `Import Failed
Last error: pods "x": the server said no^[[2J
RESOURCE   TOTAL   CREATED   EXISTING   SKIPPED   FAILED
pods       1       0         0          0         1
`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := PrintImportStatus(&b, &tc.status); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("PrintImportStatus (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrintResetResult(t *testing.T) {
	for _, tc := range []struct {
		name   string
		result ResetResult
		want   string
	}{{
		name: "what was deleted, by resource; what was kept, counted",
		result: ResetResult{
			Deleted:                        map[string]int{"pods": 2, "nodes": 3, "configmaps": 0, "deployments.apps": 1},
			Kept:                           map[string]int{"configmaps": 2, "clusterroles.rbac.authorization.k8s.io": 73, "events": 0},
			SchedulerConfigurationRestored: true,
		},
		want: `RESOURCE           DELETED
deployments.apps   1
nodes              3
pods               2
Kept 75 objects of 2 resources that the control plane made for itself.
The scheduler configuration set through the API was replaced by the simulator's own.
`,
	}, {
		name:   "an empty simulator",
		result: ResetResult{Deleted: map[string]int{"pods": 0}},
		want:   "Nothing to delete.\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := PrintResetResult(&b, &tc.result); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("PrintResetResult (-want +got):\n%s", diff)
			}
		})
	}
}
