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

package app

import (
	"context"
	"errors"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/server"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/termination"
)

func TestWatchEtcd(t *testing.T) {
	notReady := errors.New("[-]etcd failed")
	refused := errors.New("etcd https://etcd:2379: remote error: tls: certificate required")
	cases := []struct {
		name     string
		ready    bool
		probeErr error
		want     bool // an EtcdUnavailable error
	}{
		{name: "kube-apiserver ready", ready: true},
		{name: "not ready, etcd answers", probeErr: nil},
		{name: "not ready, etcd refuses", probeErr: refused, want: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var checks, probes atomic.Int32
			check := server.Check{Name: "kube-apiserver", Check: func(context.Context) error {
				// Without an error, the watch goes on: end it after a few rounds.
				if checks.Add(1) == 5 {
					cancel()
				}
				if tc.ready {
					return nil
				}
				return notReady
			}}
			probe := func(context.Context) error {
				probes.Add(1)
				return tc.probeErr
			}
			err := watchEtcd(ctx, check, probe, 0, time.Millisecond)
			var reason *termination.Error
			switch {
			case tc.want && (!errors.As(err, &reason) || reason.Reason != contract.ReasonEtcdUnavailable || !strings.Contains(err.Error(), refused.Error())):
				t.Errorf("watchEtcd: %v, want EtcdUnavailable with %q", err, refused)
			case !tc.want && err != nil:
				t.Errorf("watchEtcd: %v, want nil", err)
			case tc.ready && probes.Load() != 0:
				t.Errorf("etcd probed %d times while kube-apiserver is ready", probes.Load())
			case !tc.ready && probes.Load() == 0:
				t.Error("etcd never probed while kube-apiserver is not ready")
			}
		})
	}
}

func TestWaitForEtcd(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:2379: connect: connection refused")
	t.Run("etcd answers after a while", func(t *testing.T) {
		var probes atomic.Int32
		probe := func(context.Context) error {
			if probes.Add(1) < 3 {
				return refused
			}
			return nil
		}
		if err := waitForEtcd(t.Context(), probe, time.Minute); err != nil {
			t.Fatalf("waitForEtcd: %v", err)
		}
		if got := probes.Load(); got != 3 {
			t.Errorf("etcd probed %d times, want 3: the wait ends at its first answer", got)
		}
	})
	t.Run("etcd never answers", func(t *testing.T) {
		start := time.Now()
		if err := waitForEtcd(t.Context(), func(context.Context) error { return refused }, 100*time.Millisecond); err != nil {
			t.Fatalf("waitForEtcd: %v, want nil: kube-apiserver starts anyway", err)
		}
		if waited := time.Since(start); waited < 100*time.Millisecond {
			t.Errorf("waited %v, want the limit, 100ms", waited)
		}
	})
	t.Run("the simulator stops", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		probe := func(context.Context) error {
			cancel()
			return refused
		}
		if err := waitForEtcd(ctx, probe, time.Minute); !errors.Is(err, context.Canceled) {
			t.Errorf("waitForEtcd: %v, want context.Canceled: no start", err)
		}
	})
}
