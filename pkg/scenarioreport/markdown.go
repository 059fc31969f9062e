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

package scenarioreport

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// NoiseFloorLabel names the noise floor's row of the comparisons.
const NoiseFloorLabel = "noise floor (same configuration, second run)"

// topRejections is how many rejecting plugins the Markdown names per variant.
const topRejections = 3

// Markdown is the report as a readable comparison: the variants' figures,
// the comparisons with the noise floor, a sentence per variant on whether
// its placements differ by more than chance, and the plugins that rejected
// the most Nodes.
func (r *Report) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Scenario %s/%s\n\n", r.Namespace, r.Name)
	fmt.Fprintf(&b, "Phase: %s", cmp.Or(string(r.Phase), "Pending"))
	if r.StartTime != nil {
		fmt.Fprintf(&b, ", started %s", r.StartTime.UTC().Format(time.RFC3339))
	}
	if r.CompletionTime != nil {
		fmt.Fprintf(&b, ", completed %s", r.CompletionTime.UTC().Format(time.RFC3339))
	}
	if r.Duration != nil {
		fmt.Fprintf(&b, ", took %s", r.Duration.Round(time.Second))
	} else if r.StartTime != nil {
		fmt.Fprintf(&b, ", %d%% done", r.Progress)
	}
	b.WriteString(".\n\n## Variants\n\n")
	if len(r.Variants) == 0 {
		b.WriteString("No variants yet.\n")
	} else {
		b.WriteString("| variant | simulator | Pods scheduled | unschedulable | preempted | attempts | bind p50 | bind p99 | nodes used | CPU mean | CPU p90 | memory mean | memory p90 | late events | max lag |\n")
		b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, v := range r.Variants {
			name := v.Name
			if v.SecondRunOf != "" {
				name += " (second run of " + v.SecondRunOf + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %s | %s | %d | %d %% | %d %% | %d %% | %d %% | %d | %s |\n",
				name, v.SimulatorName, v.PodsScheduled, v.PodsUnschedulable, v.PodsPreempted, v.SchedulingAttempts,
				millis(v.BindLatency.P50Milliseconds), millis(v.BindLatency.P99Milliseconds), v.NodesUsed,
				v.CPU.MeanPercent, v.CPU.P90Percent, v.Memory.MeanPercent, v.Memory.P90Percent,
				v.Lag.Late, millis(v.Lag.MaxMilliseconds))
		}
	}

	b.WriteString("\n## Comparisons\n\n")
	if len(r.Comparisons) == 0 {
		b.WriteString("No comparisons yet: they come once every variant has finished.\n")
	} else {
		b.WriteString("| variant | baseline | placed differently | scheduled only in variant | scheduled only in baseline | nodes used Δ |\n")
		b.WriteString("|---|---|--:|--:|--:|--:|\n")
		for _, c := range r.Comparisons {
			name := c.Variant
			if c.NoiseFloor {
				name = NoiseFloorLabel
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %+d |\n",
				name, c.Baseline, c.PlacedDifferently, c.ScheduledOnlyInVariant, c.ScheduledOnlyInBaseline, c.NodesUsedDelta)
		}
		b.WriteString("\n")
		for _, c := range r.Comparisons {
			if !c.NoiseFloor {
				b.WriteString(r.verdict(c.Variant, c.Baseline, c.PlacedDifferently) + "\n\n")
			}
		}
	}

	b.WriteString("## Top rejecting plugins\n\n")
	for _, v := range r.Variants {
		fmt.Fprintf(&b, "- %s: %s\n", v.Name, topRejecting(v.Rejections))
	}
	var messages []string
	for _, v := range r.Variants {
		if v.Message != "" {
			messages = append(messages, fmt.Sprintf("- %s: %s\n", v.Name, strings.Join(strings.Fields(v.Message), " ")))
		}
	}
	if len(messages) > 0 {
		b.WriteString("\n## Messages\n\n" + strings.Join(messages, ""))
	}
	return b.Bytes()
}

// verdict says whether a variant's placements differ from the baseline's by
// more than two runs of the baseline differ.
func (r *Report) verdict(variant, baseline string, placed int64) string {
	s := fmt.Sprintf("%s placed %s differently from %s; ", variant, pods(placed), baseline)
	nf, ok := r.noiseFloor(baseline)
	if !ok {
		return s + "no noise floor was run, so chance cannot be told from the configuration."
	}
	s += fmt.Sprintf("two runs of %s differ by %d: ", baseline, nf.PlacedDifferently)
	switch noise := nf.PlacedDifferently; {
	case placed > 2*noise:
		return s + "the configuration explains most of the difference."
	case placed > noise:
		return s + "the difference exceeds the noise floor, but chance explains much of it."
	default:
		return s + "the difference is within the noise floor, and may be chance."
	}
}

// topRejecting names the plugins that rejected the most Nodes, with counts.
func topRejecting(rejections map[string]int64) string {
	plugins := make([]string, 0, len(rejections))
	for p := range rejections {
		plugins = append(plugins, p)
	}
	slices.SortFunc(plugins, func(a, b string) int {
		return cmp.Or(cmp.Compare(rejections[b], rejections[a]), strings.Compare(a, b))
	})
	if len(plugins) == 0 {
		return "none"
	}
	var parts []string
	for _, p := range plugins[:min(len(plugins), topRejections)] {
		parts = append(parts, fmt.Sprintf("%s (%d Nodes)", p, rejections[p]))
	}
	return strings.Join(parts, ", ")
}

func pods(n int64) string {
	if n == 1 {
		return "1 Pod"
	}
	return fmt.Sprintf("%d Pods", n)
}

// millis is a duration in milliseconds, readably.
func millis(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.3g s", float64(ms)/1000)
	}
	return (time.Duration(ms) * time.Millisecond).Round(time.Second).String()
}
