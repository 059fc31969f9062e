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

package inprocess

import (
	"io"
	"sync"
)

// pipe carries a response body from the handler to the client. Unlike
// io.Pipe, a write returns once its bytes are buffered, up to limit unread
// ones, as a socket's would: a watch's writer is not held up by each pause
// of its reader.
type pipe struct {
	mu    sync.Mutex
	cond  sync.Cond
	buf   []byte
	off   int // buf[off:] is unread
	limit int
	// werr is what a read returns once the buffer is drained: io.EOF once
	// the writer is done.
	werr    error
	rclosed bool
}

func newPipe(limit int) *pipe {
	p := &pipe{limit: limit}
	p.cond.L = &p.mu
	return p
}

func (p *pipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for len(b) > 0 {
		if p.rclosed || p.werr != nil {
			return n, io.ErrClosedPipe
		}
		free := p.limit - (len(p.buf) - p.off)
		if free <= 0 {
			p.cond.Wait()
			continue
		}
		take := min(free, len(b))
		if p.off > 0 && len(p.buf)+take > cap(p.buf) {
			p.buf = p.buf[:copy(p.buf, p.buf[p.off:])]
			p.off = 0
		}
		p.buf = append(p.buf, b[:take]...)
		b, n = b[take:], n+take
		p.cond.Broadcast()
	}
	return n, nil
}

func (p *pipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.off == len(p.buf) {
		if p.rclosed {
			return 0, io.ErrClosedPipe
		}
		if p.werr != nil {
			return 0, p.werr
		}
		if len(b) == 0 {
			return 0, nil
		}
		p.cond.Wait()
	}
	n := copy(b, p.buf[p.off:])
	p.off += n
	if p.off == len(p.buf) {
		p.buf, p.off = p.buf[:0], 0
	}
	p.cond.Broadcast()
	return n, nil
}

// closeWrite ends the body: reads return err (io.EOF when nil) once the
// buffer is drained.
func (p *pipe) closeWrite(err error) {
	if err == nil {
		err = io.EOF
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.werr == nil {
		p.werr = err
	}
	p.cond.Broadcast()
}

// closeRead drops what is unread; writes fail from now on.
func (p *pipe) closeRead() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rclosed = true
	p.buf, p.off = nil, 0
	p.cond.Broadcast()
}
