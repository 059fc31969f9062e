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
)

func TestPrintResult(t *testing.T) {
	at := time.Date(2026, 12, 4, 13, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		result Result
		wide   bool
		want   string
	}{{
		name: "unschedulable: the failing plugins, the nodes each rejected",
		result: Result{Namespace: "default", Name: "huge", Summary: Summary{
			Profile: "default-scheduler", Outcome: "Unschedulable",
			Message: "0/20 nodes are available: 18 Insufficient cpu, 2 node(s) had untolerated taint(s).",
			// The scheduler counts the nodes evaluated only for a Pod it placed.
			Nodes: 20, Evaluated: 0, Feasible: 0,
			FilterFailures: []FilterFailure{
				{Plugin: "NodeResourcesFit", Reason: "Insufficient cpu", Nodes: 18},
				{Plugin: "TaintToleration", Reason: "node(s) had untolerated taint {gpu: true}", Nodes: 2},
			},
			Time: at, Duration: "1.234ms",
		}},
		want: `POD:             default/huge
OUTCOME:         Unschedulable
PROFILE:         default-scheduler
MESSAGE:         0/20 nodes are available: 18 Insufficient cpu, 2 node(s) had untolerated taint(s).
NODES:           20 (0 feasible, 20 filtered out)
SELECTED NODE:   <none>
ATTEMPT:         2026-12-04T13:30:00Z, took 1.234ms

FILTER PLUGIN      REASON                                      NODES
NodeResourcesFit   Insufficient cpu                            18
TaintToleration    node(s) had untolerated taint {gpu: true}   2
`,
	}, {
		name: "bound: the best scores, the selected node marked",
		result: Result{Namespace: "shop", Name: "web-1", Summary: Summary{
			Profile: "default-scheduler", Outcome: "Bound", SelectedNode: "workers-3",
			Nodes: 5000, Evaluated: 500, Feasible: 498,
			FilterFailures: []FilterFailure{{Plugin: "NodeResourcesFit", Reason: "Insufficient cpu", Nodes: 2}},
			TopScores:      []NodeScore{{Node: "workers-3", Score: 412}, {Node: "workers-17", Score: 398}, {Node: "workers-1", Score: 398}},
		}},
		want: `POD:             shop/web-1
OUTCOME:         Bound
PROFILE:         default-scheduler
NODES:           5000 (500 evaluated, 498 feasible, 2 filtered out)
SELECTED NODE:   workers-3

FILTER PLUGIN      REASON             NODES
NodeResourcesFit   Insufficient cpu   2

NODE         FINAL SCORE
workers-3    412   <- selected
workers-17   398
workers-1    398
`,
	}, {
		name: "wide: each score plugin's share of the best nodes",
		wide: true,
		result: Result{Namespace: "default", Name: "web", Summary: Summary{
			Outcome: "Bound", SelectedNode: "b", Nodes: 2, Evaluated: 2, Feasible: 2,
			TopScores: []NodeScore{{Node: "b", Score: 300}, {Node: "a", Score: 200}},
		}, FinalScores: map[string]map[string]string{
			"a": {"NodeResourcesFit": "100", "TaintToleration": "100"},
			"b": {"NodeResourcesFit": "200", "TaintToleration": "100", "ImageLocality": "0"},
		}},
		want: `POD:             default/web
OUTCOME:         Bound
NODES:           2 (2 feasible, 0 filtered out)
SELECTED NODE:   b

NODE   FINAL SCORE   IMAGELOCALITY   NODERESOURCESFIT   TAINTTOLERATION
b      300           0               200                100   <- selected
a      200           -               100                100
`,
	}, {
		name: "preemption: the nominated node and its victims",
		result: Result{Namespace: "default", Name: "urgent", Summary: Summary{
			Outcome: "Unschedulable", NominatedNode: "workers-2", Victims: []string{"default/low-1", "default/low-2"},
			Nodes: 3, Evaluated: 3, Feasible: 0,
			FilterFailures: []FilterFailure{{Plugin: "NodeResourcesFit", Reason: "Insufficient cpu", Nodes: 3}},
		}},
		want: `POD:              default/urgent
OUTCOME:          Unschedulable
NODES:            3 (0 feasible, 3 filtered out)
SELECTED NODE:    <none>
NOMINATED NODE:   workers-2 (preemption)

FILTER PLUGIN      REASON             NODES
NodeResourcesFit   Insufficient cpu   3

PREEMPTION VICTIM   ON NODE
default/low-1       workers-2
default/low-2       workers-2
`,
	}, {
		name: "what the cluster wrote cannot move the cursor or break a row",
		result: Result{Namespace: "default", Name: "evil", Summary: Summary{
			Outcome: "Unschedulable", Message: "line one\nline\ttwo \x1b[2J",
			Nodes: 1, Evaluated: 1,
			FilterFailures: []FilterFailure{{Plugin: "Evil\x1b]0;owned\x07", Reason: "a\nb", Nodes: 1}},
		}},
		want: `POD:             default/evil
OUTCOME:         Unschedulable
MESSAGE:         line one line two ^[[2J
NODES:           1 (0 feasible, 1 filtered out)
SELECTED NODE:   <none>

FILTER PLUGIN     REASON   NODES
Evil^[]0;owned?   a b      1
`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := PrintResult(&b, &tc.result, tc.wide); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("PrintResult (-want +got):\n%s", diff)
			}
		})
	}
}
