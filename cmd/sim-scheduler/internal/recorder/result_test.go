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
		// Some rounds have an extender's scores too, for some of the
		// nodes; round 2 has only an extender's (no score plugin ran).
		var ext *extenderScores
		if round%3 == 1 || round == 2 {
			ext = &extenderScores{name: "ext", weight: 2, scores: map[string]int64{}}
		}
		for i := range nodes {
			// Names not in score order, so that ties sort by name.
			node := fmt.Sprintf("n-%d", rng.IntN(1_000_000)*1000+i)
			if round == 2 {
				a.table.nodes = append(a.table.nodes, node)
				ext.scores[node] = int64(rng.IntN(4))
				continue
			}
			for _, p := range plugins {
				a.SetScore(node, p, int64(rng.IntN(4)))
			}
			if ext != nil && rng.IntN(2) == 0 {
				ext.scores[node] = int64(rng.IntN(4))
			}
		}
		if ext != nil {
			a.table.extenders = []extenderScores{*ext}
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

// BenchmarkTopScores: the summary's best scores of an attempt that scored
// 500 nodes with 7 plugins (the scheduler's sample at 5,000 nodes).
func BenchmarkTopScores(b *testing.B) {
	plugins := []string{"A", "B", "C", "D", "E", "F", "G"}
	weights := map[string]int64{}
	for i, p := range plugins {
		weights[p] = int64(i + 1)
	}
	a := NewAttempt(types.NamespacedName{Namespace: "ns", Name: "p"}, "uid", "default-scheduler", 5000, NewPlugins(plugins, weights))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		for _, p := range plugins {
			a.SetScore(fmt.Sprintf("node-%d", i), p, int64(rng.IntN(100)))
		}
	}
	a.SelectedNode = "node-7"
	for b.Loop() {
		if len(a.topScores(maxTopScores)) != maxTopScores {
			b.Fatal("fewer top scores than asked for")
		}
	}
}
