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
	"slices"
	"sync"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// lags are how late the steps and events started against their scaled
// time: a run that cannot keep up says so, rather than stretch time.
type lags struct {
	mu     sync.Mutex
	values []time.Duration
	late   int64
}

// add records that something scheduled at scheduled started at started.
func (l *lags) add(scheduled, started time.Time) time.Duration {
	d := max(started.Sub(scheduled), 0)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.values = append(l.values, d)
	if d > contract.LateAfter {
		l.late++
	}
	return d
}

// fill sets r's lag figures.
func (l *lags) fill(r *contract.ScenarioReport) {
	l.mu.Lock()
	values := slices.Clone(l.values)
	r.Late = l.late
	l.mu.Unlock()
	if len(values) == 0 {
		r.LagP99Milliseconds, r.LagMaxMilliseconds = 0, 0
		return
	}
	slices.Sort(values)
	r.LagP99Milliseconds = percentile(values, 99).Milliseconds()
	r.LagMaxMilliseconds = values[len(values)-1].Milliseconds()
}

// percentile is the p-th percentile of sorted (nearest rank), not empty.
func percentile[T any](sorted []T, p int) T {
	rank := (p*len(sorted) + 99) / 100
	return sorted[min(max(rank, 1), len(sorted))-1]
}
