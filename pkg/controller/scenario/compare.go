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
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// placements are a run's bound Pods by group and Node, the Nodes named as
// in the scenario (see nodeNamer).
type placements map[string]map[string]int32

// compare counts how two runs' placements differ. Replicas of one group
// are interchangeable: a group's Pods placed differently are those that
// would have to move for the two runs to agree, min(bound in both) minus
// the Pods the two runs put on the same Nodes.
func compare(variant, baseline placements) (placedDifferently, onlyInVariant, onlyInBaseline int64) {
	groups := map[string]bool{}
	for g := range variant {
		groups[g] = true
	}
	for g := range baseline {
		groups[g] = true
	}
	for g := range groups {
		a, b := variant[g], baseline[g]
		var na, nb, same int64
		for node, n := range a {
			na += int64(n)
			same += int64(min(n, b[node]))
		}
		for _, n := range b {
			nb += int64(n)
		}
		placedDifferently += min(na, nb) - same
		if na > nb {
			onlyInVariant += na - nb
		} else {
			onlyInBaseline += nb - na
		}
	}
	return placedDifferently, onlyInVariant, onlyInBaseline
}

// nodeNamer names a simulator's Nodes as the scenario does: a NodePool of
// the scenario is SIMULATOR-POOL on the host, so its Nodes are
// SIMULATOR-POOL-INDEX in one simulator and have other names in the next;
// POOL-INDEX is the same in all.
type nodeNamer struct {
	simulator string
}

func (n nodeNamer) name(node string) string {
	if rest, ok := strings.CutPrefix(node, n.simulator+"-"); ok {
		return rest
	}
	return node
}

// normalize renames the Nodes of a run's placements.
func (n nodeNamer) normalize(p *contract.ScenarioPlacements) placements {
	out := make(placements, len(p.Groups))
	for g, nodes := range p.Groups {
		m := make(map[string]int32, len(nodes))
		for node, count := range nodes {
			m[n.name(node)] += count
		}
		out[g] = m
	}
	return out
}

// variantStatus is what a runner's report says of its variant.
func variantStatus(name, simulator string, durationMillis int64, r *contract.ScenarioReport) v1alpha1.ScenarioVariantStatus {
	v := v1alpha1.ScenarioVariantStatus{Name: name, SimulatorName: simulator}
	if r == nil {
		return v
	}
	v.Progress = progress(r, durationMillis)
	v.Message = r.Message
	v.PodsScheduled = r.PodsScheduled
	v.PodsUnschedulable = r.PodsUnschedulable
	v.PodsPreempted = r.PodsPreempted
	v.SchedulingAttempts = r.SchedulingAttempts
	v.BindLatency = v1alpha1.LatencySummary{P50Milliseconds: r.BindP50Milliseconds, P99Milliseconds: r.BindP99Milliseconds}
	v.NodesUsed = r.NodesUsed
	v.CPU = v1alpha1.AllocationSummary{MeanPercent: r.CPUMeanPercent, P90Percent: r.CPUP90Percent}
	v.Memory = v1alpha1.AllocationSummary{MeanPercent: r.MemoryMeanPercent, P90Percent: r.MemoryP90Percent}
	v.Lag = v1alpha1.LagSummary{P99Milliseconds: r.LagP99Milliseconds, MaxMilliseconds: r.LagMaxMilliseconds, Late: r.Late}
	if len(r.Rejections) > 0 {
		v.Rejections = make(map[string]int64, len(r.Rejections))
		for k, n := range r.Rejections {
			v.Rejections[k] = n
		}
	}
	if len(r.LargestFit) > 0 {
		v.LargestFit = make(map[string]resource.Quantity, len(r.LargestFit))
		for k, s := range r.LargestFit {
			if q, err := resource.ParseQuantity(s); err == nil {
				v.LargestFit[k] = q
			}
		}
	}
	return v
}

// progress is the share of the run done, in percent; 100 once it ended.
func progress(r *contract.ScenarioReport, durationMillis int64) int32 {
	switch {
	case r.Phase == contract.ScenarioRunSucceeded || r.Phase == contract.ScenarioRunFailed:
		return 100
	case durationMillis <= 0 || r.ElapsedMilliseconds <= 0:
		return 0
	case r.ElapsedMilliseconds >= durationMillis:
		return 99
	}
	return int32(r.ElapsedMilliseconds * 100 / durationMillis)
}

// summary is the comparison in a sentence or three, for an Event.
func summary(variants []v1alpha1.ScenarioVariantStatus, comparisons []v1alpha1.ScenarioComparison) string {
	var b strings.Builder
	for i, v := range variants {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %d Pods scheduled, %d unschedulable, %d Nodes used", v.Name, v.PodsScheduled, v.PodsUnschedulable, v.NodesUsed)
	}
	b.WriteString(".")
	for _, c := range comparisons {
		if c.NoiseFloor {
			fmt.Fprintf(&b, " Noise floor: two runs of %s placed %d Pods differently.", c.Baseline, c.PlacedDifferently)
			continue
		}
		fmt.Fprintf(&b, " %s vs %s: %d Pods placed differently, %d scheduled only in %s, %d only in %s, %+d Nodes.",
			c.Variant, c.Baseline, c.PlacedDifferently, c.ScheduledOnlyInVariant, c.Variant, c.ScheduledOnlyInBaseline, c.Baseline, c.NodesUsedDelta)
	}
	return b.String()
}
