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

// Package scenarioreport renders a scenario's outcome: the variants' figures
// and samples, and their comparison, as JSON (Report), Markdown and SVG
// plots. It does no I/O: callers read the scenario and the samples.
package scenarioreport

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// Report is a scenario's outcome: each variant's figures and samples over
// time, and the comparisons of their placements.
type Report struct {
	// Name and Namespace are the scenario's.
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Phase and Progress are the scenario's status.phase and
	// status.progress.
	Phase    v1alpha1.ScenarioPhase `json:"phase,omitempty"`
	Progress int32                  `json:"progress,omitempty"`
	// StartTime is when the workload started, CompletionTime when the last
	// variant finished.
	StartTime      *metav1.Time `json:"startTime,omitempty"`
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// Duration is CompletionTime minus StartTime, in wall time; unset until
	// the scenario completes.
	Duration *metav1.Duration `json:"duration,omitempty"`
	// Variants are in status order: the spec's, then the noise floor's
	// second run.
	Variants []Variant `json:"variants,omitempty"`
	// Comparisons are status.comparisons: each variant against the first,
	// and the noise floor (NoiseFloor true).
	Comparisons []v1alpha1.ScenarioComparison `json:"comparisons,omitempty"`
}

// Variant is one variant's figures (its status: name, simulatorName,
// counts, latencies, allocation, rejections, lag) and its samples.
type Variant struct {
	v1alpha1.ScenarioVariantStatus `json:",inline"`
	// SecondRunOf names the variant this one runs again for the noise
	// floor; empty for the others.
	SecondRunOf string `json:"secondRunOf,omitempty"`
	// Samples are the run's state over time, oldest first.
	Samples []contract.ScenarioSample `json:"samples,omitempty"`
}

// Build makes the report of a scenario from its status and its variants'
// samples, keyed by variant name. Neither is modified nor shared with the
// report.
func Build(scn *v1alpha1.Scenario, samples map[string][]contract.ScenarioSample) *Report {
	st := &scn.Status
	r := &Report{
		Name:           scn.Name,
		Namespace:      scn.Namespace,
		Phase:          st.Phase,
		Progress:       st.Progress,
		StartTime:      st.StartTime.DeepCopy(),
		CompletionTime: st.CompletionTime.DeepCopy(),
	}
	if st.StartTime != nil && st.CompletionTime != nil {
		r.Duration = &metav1.Duration{Duration: st.CompletionTime.Sub(st.StartTime.Time)}
	}
	secondRunOf := map[string]string{}
	for i := range st.Comparisons {
		c := st.Comparisons[i]
		if c.NoiseFloor {
			secondRunOf[c.Variant] = c.Baseline
		}
		r.Comparisons = append(r.Comparisons, *c.DeepCopy())
	}
	for i := range st.Variants {
		v := Variant{ScenarioVariantStatus: *st.Variants[i].DeepCopy()}
		v.SecondRunOf = secondRunOf[v.Name]
		v.Samples = slices.Clone(samples[v.Name])
		slices.SortStableFunc(v.Samples, func(a, b contract.ScenarioSample) int {
			return cmp.Compare(a.ElapsedMilliseconds, b.ElapsedMilliseconds)
		})
		r.Variants = append(r.Variants, v)
	}
	return r
}

// noiseFloor is the noise floor's comparison of baseline, if any.
func (r *Report) noiseFloor(baseline string) (v1alpha1.ScenarioComparison, bool) {
	for _, c := range r.Comparisons {
		if c.NoiseFloor && c.Baseline == baseline {
			return c, true
		}
	}
	return v1alpha1.ScenarioComparison{}, false
}
