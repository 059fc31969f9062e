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

package secretwatch

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

func secret(name string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

// TestStart: the handler hears of the named Secret alone, though the fake
// clientset ignores the field selector, and HasSynced says when a Secret
// never heard of is missing.
func TestStart(t *testing.T) {
	client := fake.NewClientset(secret("other"))
	ctx, cancel := context.WithCancel(t.Context())
	var seen, gone atomic.Int32
	w, err := Start(ctx, client, "ns", "mine", 0, cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { seen.Add(1) },
		UpdateFunc: func(_, _ any) { seen.Add(1) },
		DeleteFunc: func(any) { gone.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !cache.WaitForCacheSync(ctx.Done(), w.HasSynced) {
		t.Fatal("never synced")
	}
	if n := seen.Load(); n != 0 {
		t.Fatalf("told of %d Secrets before mine existed", n)
	}
	secrets := client.CoreV1().Secrets("ns")
	if _, err := secrets.Create(ctx, secret("mine"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := secrets.Delete(ctx, "other", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := secrets.Delete(ctx, "mine", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return gone.Load() == 1, nil
	}); err != nil {
		t.Fatalf("mine's deletion not heard: %v", err)
	}
	// Events come in order: other's deletion came before mine's.
	if s, g := seen.Load(), gone.Load(); s != 1 || g != 1 {
		t.Errorf("told of %d adds/updates and %d deletes, want 1 and 1", s, g)
	}
	cancel()
	w.Wait()
}

// TestRun: sync runs at start, again after a failure, and on a change of the
// Secret; not on a change of another.
func TestRun(t *testing.T) {
	client := fake.NewClientset(secret("mine"))
	ctx, cancel := context.WithCancel(t.Context())
	var calls atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, client, "ns", "mine", 0, "test", func(context.Context) (time.Duration, error) {
			if calls.Add(1) == 1 {
				return 0, errors.New("first call fails")
			}
			return 0, nil
		})
	}()
	waitFor := func(n int32) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return calls.Load() >= n, nil
		}); err != nil {
			t.Fatalf("sync ran %d times, want %d", calls.Load(), n)
		}
	}
	// The start's call, the add of the listed Secret (which the queue may
	// fold into it) and the retry after the failure.
	waitFor(2)
	time.Sleep(300 * time.Millisecond)
	settled := calls.Load()
	if _, err := client.CoreV1().Secrets("ns").Create(ctx, secret("other"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := calls.Load(); n != settled {
		t.Errorf("another Secret's creation ran sync (%d calls, was %d)", n, settled)
	}
	s := secret("mine")
	s.Labels = map[string]string{"changed": "yes"}
	if _, err := client.CoreV1().Secrets("ns").Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(settled + 1)
	cancel()
	<-done
}
