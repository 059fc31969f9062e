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
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/printers"
)

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the scenario."},
	{Name: "Phase", Type: "string", Description: "Pending, Running, Succeeded or Failed."},
	{Name: "Variants", Type: "integer", Description: "Scheduler configurations compared (spec.variants, or spec.simulators)."},
	{Name: "Progress", Type: "string", Description: "Share of the duration run by the slowest variant."},
	{Name: "Results", Type: "string", Description: "Each variant's headline: the most Nodes used at once (n) and the Pods left unschedulable (p)."},
	{Name: "Age", Type: "string", Description: "Time since creation."},
}

// tableConvertor prints scenarios for kubectl: NAME PHASE VARIANTS PROGRESS
// RESULTS AGE.
type tableConvertor struct{}

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	table := printers.NewTable(columns, obj)
	var items []sim.Scenario
	switch t := obj.(type) {
	case *sim.Scenario:
		items = []sim.Scenario{*t}
	case *sim.ScenarioList:
		items = t.Items
	default:
		return nil, fmt.Errorf("cannot print %T as scenarios", obj)
	}
	for i := range items {
		s := &items[i]
		variants := len(s.Spec.Variants)
		if variants == 0 {
			variants = len(s.Spec.Simulators)
		}
		table.Rows = append(table.Rows, metav1.TableRow{
			Object: runtime.RawExtension{Object: s},
			Cells: []interface{}{
				s.Name, string(s.Status.Phase), int64(variants), fmt.Sprintf("%d%%", s.Status.Progress), resultsCell(s), printers.Age(s.CreationTimestamp),
			},
		})
	}
	return table, nil
}

// resultsCell is the RESULTS column: `least:12n/0p most:8n/0p`, each
// variant's Nodes used and Pods unschedulable; <pending> before any.
func resultsCell(s *sim.Scenario) string {
	if len(s.Status.Variants) == 0 {
		return "<pending>"
	}
	parts := make([]string, 0, len(s.Status.Variants))
	for _, v := range s.Status.Variants {
		parts = append(parts, fmt.Sprintf("%s:%dn/%dp", v.Name, v.NodesUsed, v.PodsUnschedulable))
	}
	return strings.Join(parts, " ")
}
