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

import (
	"bytes"
	"io"
	"sync"
)

// maxLine bounds a buffered partial line; longer ones are written in pieces.
const maxLine = 64 << 10

// lineWriter writes each complete line to out, prefixed, in one Write call,
// so that the lines of several children interleave whole.
type lineWriter struct {
	prefix []byte
	out    io.Writer

	mu  sync.Mutex
	buf []byte
}

func newLineWriter(prefix string, out io.Writer) *lineWriter {
	return &lineWriter{prefix: []byte(prefix), out: out}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) < maxLine {
				return len(p), nil
			}
			i = len(w.buf) - 1
		}
		if err := w.emit(w.buf[:i+1]); err != nil {
			return len(p), err
		}
		w.buf = w.buf[i+1:]
	}
}

// Flush writes a pending partial line.
func (w *lineWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	err := w.emit(w.buf)
	w.buf = nil
	return err
}

func (w *lineWriter) emit(line []byte) error {
	out := make([]byte, 0, len(w.prefix)+len(line)+1)
	out = append(out, w.prefix...)
	out = append(out, line...)
	if line[len(line)-1] != '\n' {
		out = append(out, '\n')
	}
	_, err := w.out.Write(out)
	return err
}
