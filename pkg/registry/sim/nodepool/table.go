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

package nodepool

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/printers"
)

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the pool."},
	{Name: "Simulator", Type: "string", Description: "Simulator holding the Nodes."},
	{Name: "Desired", Type: "integer", Description: "spec.replicas"},
	{Name: "Current", Type: "integer", Description: "Nodes that exist."},
	{Name: "Ready", Type: "integer", Description: "Nodes that are Ready."},
	{Name: "Age", Type: "string", Description: "Time since creation."},
	{Name: "Selector", Type: "string", Priority: 1, Description: "Label selector of the pool's Nodes."},
}

// tableConvertor prints nodepools for kubectl.
type tableConvertor struct{}

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	table := printers.NewTable(columns, obj)
	var items []sim.NodePool
	switch t := obj.(type) {
	case *sim.NodePool:
		items = []sim.NodePool{*t}
	case *sim.NodePoolList:
		items = t.Items
	default:
		return nil, fmt.Errorf("cannot print %T as nodepools", obj)
	}
	for i := range items {
		np := &items[i]
		var desired int64
		if np.Spec.Replicas != nil {
			desired = int64(*np.Spec.Replicas)
		}
		table.Rows = append(table.Rows, metav1.TableRow{
			Object: runtime.RawExtension{Object: np},
			Cells: []interface{}{
				np.Name, np.Spec.SimulatorName, desired, int64(np.Status.Replicas), int64(np.Status.ReadyReplicas), printers.Age(np.CreationTimestamp), np.Status.Selector,
			},
		})
	}
	return table, nil
}
