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

package source

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// status is how the mirror stands: its phase, the source's errors by
// reader (a kind in a namespace), each until that reader reads again, and
// the readers the source forbids, skipped.
type status struct {
	mu       sync.Mutex
	phase    string
	errs     map[string]string
	skipped  map[string]string
	lastSync *time.Time
	lag      time.Duration
	shadow   contract.ShadowCounts
}

func newStatus() *status {
	return &status{phase: contract.SourceImporting, errs: map[string]string{}, skipped: map[string]string{}}
}

// setPhase sets the phase the mirror is in when it can read the source.
func (s *status) setPhase(phase string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.phase = phase
}

// readerFailed notes that reader cannot read the source, in the source's
// words; readerOK that it can again.
func (s *status) readerFailed(reader string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs[reader] = err.Error()
}

// skip notes that the source forbids reader (a 403): it is skipped, not
// failed.
func (s *status) skip(reader string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.errs, reader)
	s.skipped[reader] = err.Error()
}

func (s *status) readerOK(reader string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.errs, reader)
}

// synced notes that the mirror matched the source at t, the last change
// having taken lag from its receipt.
func (s *status) synced(t time.Time, lag time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastSync = &t
	if lag >= 0 {
		s.lag = lag
	}
}

func (s *status) applied(lag time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lag = lag
}

func (s *status) countShadow(agreement string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch agreement {
	case contract.ShadowSame:
		s.shadow.Same++
	case contract.ShadowOther:
		s.shadow.Other++
	case contract.ShadowUnschedulable:
		s.shadow.Unschedulable++
	}
}

// get is the status, with the objects counted as given. Failed wins while
// any reader fails; the message is the first failing reader's, in order of
// their names, so that it does not flicker between readers.
func (s *status) get(objects map[string]int64) contract.SourceStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := contract.SourceStatus{
		Phase:           s.phase,
		Objects:         objects,
		LagMilliseconds: s.lag.Milliseconds(),
		Shadow:          s.shadow,
	}
	if s.lastSync != nil {
		t := *s.lastSync
		out.LastSyncTime = &t
	}
	if len(s.skipped) > 0 {
		out.Skipped = sortedKeys(s.skipped)
		out.Message = fmt.Sprintf("skipped, as the source forbids reading them: %s (%s)",
			strings.Join(out.Skipped, ", "), s.skipped[out.Skipped[0]])
	}
	if len(s.errs) > 0 {
		out.Phase = contract.SourceFailed
		out.Message = s.errs[sortedKeys(s.errs)[0]]
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
