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

// Package ownershipkey keeps the key the server's replicas sign the claims
// of their objects in hosting clusters with (backing.Signer): a Secret in
// the server's namespace, made by the first replica that finds none.
package ownershipkey

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/secretwatch"
	"sigs.k8s.io/simulator-apiserver/pkg/servingcert"
)

const (
	// SecretName is the Secret, in the server's namespace, of the key.
	SecretName = "sim-apiserver-ownership-key"
	// DataKey is the key's entry in the Secret.
	DataKey = "key"
)

// resync bounds how long a replica goes on with a key the Secret no
// longer holds, should a watch event be lost.
const resync = 10 * time.Minute

// Keeper holds the key of the Secret and keeps the Secret there. Every
// replica runs one, and they agree: the Secret is only ever created if
// absent (a replica that loses the race takes the winner's), and its key is
// the one each adopts. A Secret deleted is made again with the key held, so
// that no object signed before is disowned; a new key disowns them all.
type Keeper struct {
	client    kubernetes.Interface
	namespace string

	mu     sync.RWMutex
	key    []byte
	signer *backing.Signer
}

// New returns the keeper of the key in namespace, the server's.
func New(client kubernetes.Interface, namespace string) *Keeper {
	return &Keeper{
		client: client, namespace: namespace,
	}
}

// Signer signs with the key held; nil before the first Sync succeeded.
func (k *Keeper) Signer() *backing.Signer {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.signer
}

// Sync makes the Secret if absent, with the key held or a new one, and
// holds the Secret's key. A Secret of that name that is not the server's,
// or whose key is not one, is an error: the key held stays.
func (k *Keeper) Sync(ctx context.Context) error {
	var key []byte
	err := retry.OnError(retry.DefaultRetry, apierrors.IsAlreadyExists, func() error {
		var err error
		key, err = k.ensureSecret(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("keeping the ownership key %s/%s: %w", k.namespace, SecretName, err)
	}
	signer, err := backing.NewSigner(key)
	if err != nil {
		return fmt.Errorf("the ownership key %s/%s: %w", k.namespace, SecretName, err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != nil && !bytes.Equal(k.key, key) {
		klog.FromContext(ctx).Info("The ownership key changed: the hosted objects signed with the one before are no longer the server's", "secret", klog.KRef(k.namespace, SecretName))
	}
	k.key, k.signer = key, signer
	return nil
}

// ensureSecret returns the Secret's key, creating the Secret if absent.
func (k *Keeper) ensureSecret(ctx context.Context) ([]byte, error) {
	secrets := k.client.CoreV1().Secrets(k.namespace)
	secret, err := secrets.Get(ctx, SecretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		k.mu.RLock()
		key := bytes.Clone(k.key)
		k.mu.RUnlock()
		if key == nil {
			key = make([]byte, backing.MinOwnershipKeyBytes)
			if _, err := rand.Read(key); err != nil {
				return nil, err
			}
		}
		secret = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: SecretName, Namespace: k.namespace,
				Labels: map[string]string{servingcert.ManagedByLabel: servingcert.ManagedBy}},
			Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{DataKey: key},
		}
		if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			// AlreadyExists: another replica made it first; Sync reads that one.
			return nil, err
		}
		klog.FromContext(ctx).Info("Created the ownership key", "secret", klog.KObj(secret))
		return key, nil
	case err != nil:
		return nil, err
	}
	if secret.Labels[servingcert.ManagedByLabel] != servingcert.ManagedBy {
		return nil, fmt.Errorf("the Secret exists but is not sim-apiserver's (label %s=%s wanted): refusing to use it",
			servingcert.ManagedByLabel, servingcert.ManagedBy)
	}
	return secret.Data[DataKey], nil
}

// Run keeps the Secret and the key held until ctx ends: on every change of
// the Secret, and every few minutes.
func (k *Keeper) Run(ctx context.Context) {
	secretwatch.Run(ctx, k.client, k.namespace, SecretName, resync, "ownershipkey", func(ctx context.Context) (time.Duration, error) {
		return 0, k.Sync(ctx)
	})
}
