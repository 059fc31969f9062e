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

package framework

import (
	"net"
	"strconv"
	"testing"
)

func TestFreePorts(t *testing.T) {
	lo, hi := portRange()
	// An outgoing connection's local port, for comparison: it must never be
	// in the range ports are picked from.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if p := conn.LocalAddr().(*net.TCPAddr).Port; p >= lo && p < hi {
		t.Errorf("an outgoing connection's port %d is inside the range [%d, %d) ports are picked from", p, lo, hi)
	}

	first, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	again, err := freePorts(3, first[0])
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range append(first, again...) {
		if seen[p] {
			t.Errorf("port %d handed out twice in %v and %v", p, first, again)
		}
		seen[p] = true
		if p < lo || p >= hi {
			t.Errorf("port %d outside [%d, %d)", p, lo, hi)
		}
		// Another test process (flock's locks are per open file) finds it
		// claimed.
		if ok, err := claim(p); err != nil || ok {
			t.Errorf("port %d could be claimed again (%v, %v): another test process could pick it", p, ok, err)
		}
		bound, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Errorf("port %d is not free: %v", p, err)
			continue
		}
		_ = bound.Close()
	}
}
