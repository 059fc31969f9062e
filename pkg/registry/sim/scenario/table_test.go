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

package scenario

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

func TestTable(t *testing.T) {
	pending := newScenario()
	pending.CreationTimestamp = metav1.NewTime(time.Now().Add(-2 * time.Minute))
	running := newScenario()
	running.Name = "running"
	running.Spec.Variants, running.Spec.Simulators = nil, []string{"a", "b", "c"}
	running.CreationTimestamp = pending.CreationTimestamp
	running.Status = sim.ScenarioStatus{Phase: sim.ScenarioRunning, Progress: 45, Variants: []sim.ScenarioVariantStatus{
		{Name: "least", NodesUsed: 12, PodsUnschedulable: 0},
		{Name: "most", NodesUsed: 8, PodsUnschedulable: 3},
	}}
	table, err := tableConvertor{}.ConvertToTable(context.Background(), &sim.ScenarioList{Items: []sim.Scenario{*pending, *running}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var headers []string
	for _, c := range table.ColumnDefinitions {
		headers = append(headers, c.Name)
	}
	if diff := cmp.Diff([]string{"Name", "Phase", "Variants", "Progress", "Results", "Age"}, headers); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	var rows [][]interface{}
	for _, r := range table.Rows {
		rows = append(rows, r.Cells)
	}
	want := [][]interface{}{
		{"binpack", "", int64(2), "0%", "<pending>", "2m"},
		{"running", "Running", int64(3), "45%", "least:12n/0p most:8n/3p", "2m"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if _, err := (tableConvertor{}).ConvertToTable(context.Background(), &sim.Simulator{}, nil); err == nil {
		t.Error("a simulator printed as a scenario")
	}
}
