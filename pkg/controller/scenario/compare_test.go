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
	"testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name               string
		variant, baseline  placements
		diff, onlyV, onlyB int64
	}{
		{name: "same", variant: placements{"d/web-*": {"a": 2, "b": 1}}, baseline: placements{"d/web-*": {"a": 2, "b": 1}}},
		{
			// Replicas are interchangeable: only the counts per Node matter.
			name:     "one replica moved",
			variant:  placements{"d/web-*": {"a": 3}},
			baseline: placements{"d/web-*": {"a": 2, "b": 1}},
			diff:     1,
		},
		{
			name:     "a Pod on another Node and one more scheduled",
			variant:  placements{"d/solo": {"b": 1}, "d/web-*": {"a": 2, "c": 1}},
			baseline: placements{"d/solo": {"a": 1}, "d/web-*": {"a": 2}},
			diff:     1, onlyV: 1,
		},
		{
			name:     "groups in one run only",
			variant:  placements{"d/x": {"a": 1}},
			baseline: placements{"d/y": {"a": 1}, "d/z-*": {"a": 2, "b": 2}},
			onlyV:    1, onlyB: 5,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diff, onlyV, onlyB := compare(tc.variant, tc.baseline)
			if diff != tc.diff || onlyV != tc.onlyV || onlyB != tc.onlyB {
				t.Errorf("compare = %d placed differently, %d only in the variant, %d only in the baseline; want %d, %d, %d",
					diff, onlyV, onlyB, tc.diff, tc.onlyV, tc.onlyB)
			}
			// Swapping the runs swaps the one-sided counts only.
			diff2, onlyV2, onlyB2 := compare(tc.baseline, tc.variant)
			if diff2 != diff || onlyV2 != onlyB || onlyB2 != onlyV {
				t.Errorf("swapped: %d, %d, %d", diff2, onlyV2, onlyB2)
			}
		})
	}
}

// TestNodeNamer: the Nodes of a scenario's pool carry the simulator's name
// in each run; the comparison sees them under the pool's.
func TestNodeNamer(t *testing.T) {
	p := &contract.ScenarioPlacements{Groups: map[string]map[string]int32{
		"d/web-*": {"binpack-most-small-0": 2, "binpack-most-large-3": 1, "imported-node": 1},
	}}
	got := nodeNamer{simulator: "binpack-most"}.normalize(p)
	want := map[string]int32{"small-0": 2, "large-3": 1, "imported-node": 1}
	if len(got["d/web-*"]) != len(want) {
		t.Fatalf("normalize = %v, want %v", got, want)
	}
	for node, n := range want {
		if got["d/web-*"][node] != n {
			t.Errorf("normalize = %v, want %v", got, want)
		}
	}
}

func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		r    contract.ScenarioReport
		want int32
	}{
		{contract.ScenarioReport{Phase: contract.ScenarioRunWaiting}, 0},
		{contract.ScenarioReport{Phase: contract.ScenarioRunRunning, ElapsedMilliseconds: 30_000}, 50},
		// Past the duration but not ended (a late wait): not 100 yet.
		{contract.ScenarioReport{Phase: contract.ScenarioRunRunning, ElapsedMilliseconds: 90_000}, 99},
		{contract.ScenarioReport{Phase: contract.ScenarioRunFailed, ElapsedMilliseconds: 1}, 100},
	} {
		if got := progress(&tc.r, 60_000); got != tc.want {
			t.Errorf("progress(%+v) = %d, want %d", tc.r, got, tc.want)
		}
	}
}
