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

package inner

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// TestDialRetryingRefused: a NodePort that refuses connections until
// kube-proxy programs it is dialled again until it listens, within the
// wait; past it, the refusal is the error; another error is at once.
func TestDialRetryingRefused(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	var d net.Dialer

	// Nothing listens: refused after the wait, not before.
	start := time.Now()
	if _, err := dialRetryingRefused(d.DialContext, 300*time.Millisecond)(t.Context(), "tcp", addr); err == nil {
		t.Fatal("dialled an address nothing listens at")
	}
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("gave up after %v, want about the wait", took)
	}

	// It listens a moment later: dialled.
	listening := make(chan net.Listener, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
		}
		listening <- l
	}()
	conn, err := dialRetryingRefused(d.DialContext, 10*time.Second)(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatalf("dialling a port that listens within the wait: %v", err)
	}
	conn.Close()
	if l := <-listening; l != nil {
		l.Close()
	}

	// Another error is not tried again.
	calls := 0
	failing := func(context.Context, string, string) (net.Conn, error) {
		calls++
		return nil, errors.New("no route to host")
	}
	if _, err := dialRetryingRefused(failing, 10*time.Second)(t.Context(), "tcp", addr); err == nil || calls != 1 {
		t.Errorf("a dial failing otherwise: %v after %d calls, want its error after one", err, calls)
	}
}
