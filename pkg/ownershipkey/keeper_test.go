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

package ownershipkey

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/servingcert"
)

const ns = "sim-system"

func keyOf(t *testing.T, client *fake.Clientset) []byte {
	t.Helper()
	s, err := client.CoreV1().Secrets(ns).Get(t.Context(), SecretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Data[DataKey]
}

// signedPod is a hosted Pod signed by signer.
func signedPod(t *testing.T, signer *backing.Signer) (*corev1.Pod, backing.SignedOwner) {
	t.Helper()
	owner := signer.Owner(backing.Claim{Namespace: "team-a", Name: "example", UID: "sim-uid"})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "sims", Name: "sim-example-g1", UID: "pod-uid"}}
	if err := owner.Sign(pod); err != nil {
		t.Fatal(err)
	}
	return pod, owner
}

// TestReplicasAgree: the first replica makes the Secret with a new key;
// another, even one whose create loses the race to it, holds the same key,
// so that what one signs the other owns.
func TestReplicasAgree(t *testing.T) {
	client := fake.NewClientset()
	first := New(client, ns)
	if first.Signer() != nil {
		t.Fatal("a signer before any Sync")
	}
	if err := first.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	key := keyOf(t, client)
	if len(key) != backing.MinOwnershipKeyBytes {
		t.Fatalf("the key has %d bytes, want %d", len(key), backing.MinOwnershipKeyBytes)
	}
	s, _ := client.CoreV1().Secrets(ns).Get(t.Context(), SecretName, metav1.GetOptions{})
	if s.Labels[servingcert.ManagedByLabel] != servingcert.ManagedBy {
		t.Errorf("labels %v, want the server's", s.Labels)
	}

	// The second replica read before the first made it: its create fails.
	var missed atomic.Bool
	client.PrependReactor("get", "secrets", func(clienttesting.Action) (bool, runtime.Object, error) {
		if missed.CompareAndSwap(false, true) {
			return true, nil, apierrors.NewNotFound(corev1.Resource("secrets"), SecretName)
		}
		return false, nil, nil
	})
	second := New(client, ns)
	if err := second.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !missed.Load() || !bytes.Equal(keyOf(t, client), key) {
		t.Fatal("the race's loser replaced the key")
	}
	pod, _ := signedPod(t, first.Signer())
	if _, owner := signedPod(t, second.Signer()); !owner.Owns(pod) {
		t.Error("what one replica signed the other does not own")
	}
}

// TestSecretDeleted: a deleted Secret is made again with the key held, so
// the objects signed before stay the server's.
func TestSecretDeleted(t *testing.T) {
	client := fake.NewClientset()
	k := New(client, ns)
	if err := k.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	key := keyOf(t, client)
	pod, _ := signedPod(t, k.Signer())
	if err := client.CoreV1().Secrets(ns).Delete(t.Context(), SecretName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := k.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(keyOf(t, client), key) {
		t.Error("the Secret was made again with another key")
	}
	other := New(client, ns)
	if err := other.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, owner := signedPod(t, other.Signer()); !owner.Owns(pod) {
		t.Error("a Pod signed before the deletion is no longer owned")
	}
}

// TestSecretRefused: a Secret of that name that is not the server's, or
// whose key is too short, is not used; the key held stays.
func TestSecretRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secret *corev1.Secret
		want   string
	}{
		{"not the server's", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: SecretName, Namespace: ns},
			Data: map[string][]byte{DataKey: bytes.Repeat([]byte{1}, 32)}}, "is not sim-apiserver's"},
		{"a short key", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: SecretName, Namespace: ns,
			Labels: map[string]string{servingcert.ManagedByLabel: servingcert.ManagedBy}},
			Data: map[string][]byte{DataKey: []byte("short")}}, "fewer than 32"},
		{"no key", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: SecretName, Namespace: ns,
			Labels: map[string]string{servingcert.ManagedByLabel: servingcert.ManagedBy}}}, "fewer than 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			k := New(client, ns)
			if err := k.Sync(t.Context()); err != nil {
				t.Fatal(err)
			}
			held := k.Signer()
			if _, err := client.CoreV1().Secrets(ns).Update(t.Context(), tc.secret, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			err := k.Sync(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), ns+"/"+SecretName) {
				t.Errorf("Sync: %v, want an error naming the Secret with %q", err, tc.want)
			}
			if k.Signer() != held {
				t.Error("the key held changed")
			}
			if New(client, ns).Sync(t.Context()) == nil {
				t.Error("a new replica took the refused Secret")
			}
		})
	}
}

// TestRun: running, a keeper makes the Secret, and makes it again when it
// is deleted.
func TestRun(t *testing.T) {
	client := fake.NewClientset()
	// The fake clientset's watch starts after its list, and misses what
	// happens between: once the keeper watches, the Secret is touched (so
	// that its informer holds it, whenever it was made) and then deleted.
	watching := make(chan struct{})
	var once sync.Once
	client.PrependWatchReactor("secrets", func(action clienttesting.Action) (bool, watch.Interface, error) {
		w, err := client.Tracker().Watch(action.GetResource(), action.GetNamespace())
		if err == nil {
			once.Do(func() { close(watching) })
		}
		return true, w, err
	})
	k := New(client, ns)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		k.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	waitForKey := func() []byte {
		t.Helper()
		var key []byte
		if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			s, err := client.CoreV1().Secrets(ns).Get(ctx, SecretName, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			key = s.Data[DataKey]
			return k.Signer() != nil, nil
		}); err != nil {
			t.Fatalf("no key: %v", err)
		}
		return key
	}
	key := waitForKey()
	select {
	case <-watching:
	case <-time.After(10 * time.Second):
		t.Fatal("the keeper never watched the Secret")
	}
	secret, err := client.CoreV1().Secrets(ns).Get(t.Context(), SecretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	metav1.SetMetaDataAnnotation(&secret.ObjectMeta, "touched", "true")
	if _, err := client.CoreV1().Secrets(ns).Update(t.Context(), secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Secrets(ns).Delete(t.Context(), SecretName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if again := waitForKey(); !bytes.Equal(again, key) {
		t.Error("the Secret was made again with another key")
	}
}
