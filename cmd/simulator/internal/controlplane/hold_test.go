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

package controlplane

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestHoldOverSocket: the hold is the request, from the "held" answer to
// release (or the caller's context); a refusal is an error.
func TestHoldOverSocket(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "hold.sock")
	lis, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var holding atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hold/{name}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("name") != KubeControllerManager {
			http.Error(w, "no component", http.StatusNotFound)
			return
		}
		holding.Add(1)
		defer holding.Add(-1)
		w.Write([]byte("held\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(lis)
	defer srv.Close()

	waitHolding := func(want int32) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for holding.Load() != want {
			if time.Now().After(deadline) {
				t.Fatalf("holding %d, want %d", holding.Load(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	held, release, err := HoldOverSocket(t.Context(), socket, KubeControllerManager)
	if err != nil {
		t.Fatal(err)
	}
	waitHolding(1)
	if held.Err() != nil {
		t.Fatalf("held ended while holding: %v", context.Cause(held))
	}
	release()
	waitHolding(0)
	if cause := context.Cause(held); !errors.Is(cause, context.Canceled) {
		t.Errorf("released: held's cause %v, want context.Canceled", cause)
	}

	ctx, cancel := context.WithCancel(t.Context())
	if _, _, err := HoldOverSocket(ctx, socket, KubeControllerManager); err != nil {
		t.Fatal(err)
	}
	waitHolding(1)
	cancel()
	waitHolding(0)

	if _, _, err := HoldOverSocket(t.Context(), socket, "nothing"); err == nil {
		t.Error("a refused hold: no error")
	}

	// The runtime's process stops: the request ends without release.
	held, release, err = HoldOverSocket(t.Context(), socket, KubeControllerManager)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	waitHolding(1)
	srv.Close()
	select {
	case <-held.Done():
		if cause := context.Cause(held); !errors.Is(cause, ErrHoldLost) {
			t.Errorf("lost hold: held's cause %v, want ErrHoldLost", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server closed the hold's connection: held has not ended")
	}

	if _, _, err := HoldOverSocket(t.Context(), filepath.Join(t.TempDir(), "none.sock"), KubeControllerManager); err == nil {
		t.Error("a hold with no socket: no error")
	}
}
