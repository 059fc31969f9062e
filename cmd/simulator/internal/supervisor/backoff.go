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

package supervisor

import "time"

// Backoff is the delay before restarting a child that exited: Initial,
// multiplied by Factor after each quick exit up to Max, and back to Initial
// once the child ran for StableAfter or longer.
type Backoff struct {
	Initial     time.Duration
	Max         time.Duration
	Factor      float64
	StableAfter time.Duration

	next time.Duration
}

// DefaultBackoff is 100ms, 200ms, … capped at 10s, reset after 30s of
// stable running.
func DefaultBackoff() Backoff {
	return Backoff{Initial: 100 * time.Millisecond, Max: 10 * time.Second, Factor: 2, StableAfter: 30 * time.Second}
}

// Next returns the delay before the next start of a child that ran for ran.
func (b *Backoff) Next(ran time.Duration) time.Duration {
	if b.next == 0 || ran >= b.StableAfter {
		b.next = b.Initial
	}
	d := b.next
	b.next = min(time.Duration(float64(b.next)*b.Factor), b.Max)
	return d
}

// Reset makes the next delay Initial.
func (b *Backoff) Reset() {
	b.next = 0
}
