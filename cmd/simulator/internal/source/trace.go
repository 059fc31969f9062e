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
	"encoding/json"
	"io"
	"sync"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// DefaultTraceBytes bounds the trace: past it, the oldest events go.
const DefaultTraceBytes = 16 << 20

// Trace is the changes seen on the source, as JSON lines, oldest first,
// at most max bytes of them.
type Trace struct {
	mu    sync.Mutex
	max   int
	lines [][]byte
	// head is the index of the oldest line; lines before it are dropped.
	head int
	size int
}

// NewTrace returns a trace of at most max bytes.
func NewTrace(max int) *Trace {
	return &Trace{max: max}
}

// Add appends an event, dropping the oldest as needed; an event larger
// than the whole trace is dropped.
func (t *Trace) Add(ev contract.TraceEvent) {
	line, err := json.Marshal(ev)
	if err != nil {
		return
	}
	line = append(line, '\n')
	if len(line) > t.max {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.size+len(line) > t.max {
		// The slot is left as it is: a WriteTo may be reading it.
		t.size -= len(t.lines[t.head])
		t.head++
	}
	// The dropped lines are let go once they are half the slice.
	if t.head > len(t.lines)/2 {
		t.lines = append(t.lines[:0:0], t.lines[t.head:]...)
		t.head = 0
	}
	t.lines = append(t.lines, line)
	t.size += len(line)
}

// WriteTo writes the trace to w. Lines are never changed once added, so
// they are written out of the lock.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	t.mu.Lock()
	lines := t.lines[t.head:len(t.lines):len(t.lines)]
	t.mu.Unlock()
	var n int64
	for _, l := range lines {
		m, err := w.Write(l)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
