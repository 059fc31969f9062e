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

package simulator

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/printers"
)

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the simulator."},
	{Name: "Phase", Type: "string", Description: "Where the simulator is in its lifecycle."},
	{Name: "Source", Type: "string", Description: "How the mirror of spec.source stands: Importing, Synced, Syncing or Failed; Waiting before the simulator reports."},
	{Name: "Synced", Type: "string", Description: "Time since the mirror last held everything the source had sent."},
	{Name: "URL", Type: "string", Description: "In-cluster URL of the inner kube-apiserver."},
	{Name: "Age", Type: "string", Description: "Time since creation."},
	{Name: "Image", Type: "string", Priority: 1, Description: "Simulator image."},
	{Name: "Pod", Type: "string", Priority: 1, Description: "Backing Pod."},
	{Name: "Message", Type: "string", Priority: 1, Description: "Why the simulator is in this phase."},
}

// tableConvertor prints simulators for kubectl: NAME PHASE SOURCE SYNCED URL
// AGE, and with -o wide IMAGE POD MESSAGE.
type tableConvertor struct{}

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	table := printers.NewTable(columns, obj)
	var items []sim.Simulator
	switch t := obj.(type) {
	case *sim.Simulator:
		items = []sim.Simulator{*t}
	case *sim.SimulatorList:
		items = t.Items
	default:
		return nil, fmt.Errorf("cannot print %T as simulators", obj)
	}
	for i := range items {
		s := &items[i]
		table.Rows = append(table.Rows, metav1.TableRow{
			Object: runtime.RawExtension{Object: s},
			Cells: []interface{}{
				s.Name, string(s.Status.Phase), sourceCell(s), syncedCell(s), s.Status.KubeAPIServerURL, printers.Age(s.CreationTimestamp),
				s.Spec.Image, s.Status.PodName, s.Status.Message,
			},
		})
	}
	return table, nil
}

// sourceCell is the SOURCE column: <none> without a source, Waiting until
// the simulator reports on it.
func sourceCell(s *sim.Simulator) string {
	switch {
	case s.Spec.Source == nil:
		return "<none>"
	case s.Status.Source == nil || s.Status.Source.Phase == "":
		return "Waiting"
	}
	return string(s.Status.Source.Phase)
}

// syncedCell is the SYNCED column: how long ago the mirror last held
// everything the source had sent.
func syncedCell(s *sim.Simulator) string {
	if s.Status.Source == nil || s.Status.Source.LastSyncTime == nil {
		return "<none>"
	}
	return printers.Age(*s.Status.Source.LastSyncTime)
}
