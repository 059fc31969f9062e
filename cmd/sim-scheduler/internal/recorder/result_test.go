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

package recorder

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
)

// TestTopScores checks the bounded selection against sorting every node,
// with many ties (scores from a small range), the selected node among
// them, and fewer nodes than asked for.
func TestTopScores(t *testing.T) {
	plugins := []string{"A", "B", "C"}
	weights := map[string]int64{"A": 1, "B": 2, "C": 3}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		nodes := 1 + rng.IntN(300)
		if round == 0 {
			nodes = 3
		}
		a := NewAttempt(types.NamespacedName{Namespace: "ns", Name: "p"}, "uid", "default-scheduler", nodes, NewPlugins(plugins, weights))
		for i := range nodes {
			// Names not in score order, so that ties sort by name.
			node := fmt.Sprintf("n-%d", rng.IntN(1_000_000)*1000+i)
			for _, p := range plugins {
				a.SetScore(node, p, int64(rng.IntN(4)))
			}
		}
		a.SelectedNode = a.table.nodes[rng.IntN(nodes)]
		var want []NodeScore
		a.ForEachScore(func(node, _ string, _, final int64, first bool) {
			if first {
				want = append(want, NodeScore{Node: node})
			}
			want[len(want)-1].Score += final
		})
		sort.Slice(want, func(i, j int) bool {
			if want[i].Score != want[j].Score {
				return want[i].Score > want[j].Score
			}
			if (want[i].Node == a.SelectedNode) != (want[j].Node == a.SelectedNode) {
				return want[i].Node == a.SelectedNode
			}
			return want[i].Node < want[j].Node
		})
		want = want[:min(len(want), maxTopScores)]
		if diff := cmp.Diff(want, a.topScores(maxTopScores)); diff != "" {
			t.Fatalf("round %d, %d nodes, selected %s: top scores (-sorted +selected):\n%s", round, nodes, a.SelectedNode, diff)
		}
	}
	empty := NewAttempt(types.NamespacedName{Namespace: "ns", Name: "p"}, "uid", "default-scheduler", 0, NewPlugins(plugins, weights))
	if got := empty.topScores(maxTopScores); got != nil {
		t.Errorf("top scores of an attempt that scored nothing = %v, want none", got)
	}
}
