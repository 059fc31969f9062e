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

package servingcert

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"sigs.k8s.io/simulator-apiserver/pkg/secretwatch"
)

// ManagedByLabel marks the Secret as the server's. A Secret of the same
// name without it is never used nor overwritten: someone else made it.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "sim-apiserver"
)

// Resync bounds how long an APIService whose caBundle someone changed
// stays wrong.
const resync = 5 * time.Minute

// Controller keeps the Secret, serves its certificate (it is the generic
// server's dynamic serving certificate: a CertKeyContentProvider that
// notifies on change), and keeps the APIService's caBundle. Every replica
// runs it: they agree because the Secret is created only if absent and
// updated with optimistic concurrency, Next is a function of it, and the
// caBundle is the Secret's, written only forward (OlderBundle).
type Controller struct {
	client     kubernetes.Interface
	aggregator aggregator.Interface
	namespace  string
	secret     string
	apiService string
	policy     Policy
	// Now is the clock; tests move it to rotate.
	Now func() time.Time

	mu        sync.RWMutex
	cert, key []byte
	listeners []dynamiccertificates.Listener
}

var (
	_ dynamiccertificates.CertKeyContentProvider = &Controller{}
	_ dynamiccertificates.ControllerRunner       = &Controller{}
)

// New returns a controller of the Secret namespace/secret whose CA goes to
// the caBundle of the APIService apiService (none if empty).
func New(client kubernetes.Interface, agg aggregator.Interface, namespace, secret, apiService string, p Policy) (*Controller, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Controller{
		client: client, aggregator: agg, namespace: namespace, secret: secret, apiService: apiService, policy: p,
		Now: time.Now,
	}, nil
}

// Name names the certificate in the generic server's logs.
func (c *Controller) Name() string { return "servingcert::" + c.namespace + "/" + c.secret }

// CurrentCertKeyContent is the certificate served now.
func (c *Controller) CurrentCertKeyContent() ([]byte, []byte) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cert, c.key
}

// AddListener registers who reloads the certificate when it changes.
func (c *Controller) AddListener(l dynamiccertificates.Listener) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listeners = append(c.listeners, l)
}

// RunOnce makes sure there is a certificate before the server serves.
func (c *Controller) RunOnce(ctx context.Context) error {
	_, err := c.Sync(ctx)
	return err
}

// Run keeps the Secret, the served certificate and the caBundle up to date
// until ctx ends: on every change of the Secret, at every renewal, and
// every few minutes for the APIService.
func (c *Controller) Run(ctx context.Context, _ int) {
	secretwatch.Run(ctx, c.client, c.namespace, c.secret, resync, "servingcert", func(ctx context.Context) (time.Duration, error) {
		next, err := c.Sync(ctx)
		if err != nil {
			return 0, err
		}
		// At least a moment: a renewal due now has just been made.
		return max(next.Sub(c.Now()), time.Second), nil
	})
}

// Sync brings the Secret, the served certificate and the caBundle to what
// they should be now, and returns when it must run again at the latest.
func (c *Controller) Sync(ctx context.Context) (time.Time, error) {
	var data map[string][]byte
	err := retry.OnError(retry.DefaultRetry, func(err error) bool {
		return apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err)
	}, func() error {
		var err error
		data, err = c.ensureSecret(ctx)
		return err
	})
	if err != nil {
		return time.Time{}, err
	}
	c.serve(ctx, data[corev1.TLSCertKey], data[corev1.TLSPrivateKeyKey])
	if err := c.ensureCABundle(ctx, data[CABundleKey]); err != nil {
		return time.Time{}, err
	}
	return NextCheck(c.Now(), data, c.policy), nil
}

// ensureSecret creates the Secret if absent and rotates what Next says,
// refusing a Secret of that name that is not the server's.
func (c *Controller) ensureSecret(ctx context.Context) (map[string][]byte, error) {
	secrets := c.client.CoreV1().Secrets(c.namespace)
	secret, err := secrets.Get(ctx, c.secret, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		data, _, err := Next(c.Now(), nil, c.policy)
		if err != nil {
			return nil, err
		}
		secret = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: c.secret, Namespace: c.namespace, Labels: map[string]string{ManagedByLabel: ManagedBy}},
			Type:       corev1.SecretTypeTLS,
			Data:       data,
		}
		if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			// AlreadyExists: another replica made it first; use that one.
			return nil, err
		}
		klog.FromContext(ctx).Info("Created the serving certificate and its CA", "secret", klog.KObj(secret))
		return data, nil
	case err != nil:
		return nil, err
	}
	if secret.Labels[ManagedByLabel] != ManagedBy || secret.Type != corev1.SecretTypeTLS {
		return nil, fmt.Errorf("secret %s/%s exists but is not sim-apiserver's (type %s and label %s=%s wanted): refusing to use or overwrite it",
			c.namespace, c.secret, corev1.SecretTypeTLS, ManagedByLabel, ManagedBy)
	}
	data, changed, err := Next(c.Now(), secret.Data, c.policy)
	if err != nil || !changed {
		return data, err
	}
	secret = secret.DeepCopy()
	secret.Data = data
	if _, err := secrets.Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		// Conflict: another replica rotated first; start again from its.
		return nil, err
	}
	klog.FromContext(ctx).Info("Rotated the serving certificate", "secret", klog.KObj(secret))
	return data, nil
}

// serve makes cert and key the served certificate, telling the listeners
// (the generic server's TLS config) when it changed.
func (c *Controller) serve(ctx context.Context, cert, key []byte) {
	c.mu.Lock()
	if bytes.Equal(c.cert, cert) && bytes.Equal(c.key, key) {
		c.mu.Unlock()
		return
	}
	c.cert, c.key = cert, key
	listeners := c.listeners
	c.mu.Unlock()
	klog.FromContext(ctx).V(2).Info("Serving a new certificate", "secret", klog.KRef(c.namespace, c.secret))
	for _, l := range listeners {
		l.Enqueue()
	}
}

// ensureCABundle sets the APIService's caBundle to bundle, the Secret's as
// this replica last read it, unless the APIService holds a newer one (see
// OlderBundle): a replica whose view of the Secret lags during a rotation
// leaves alone what a replica with a newer view wrote, so that the bundle
// only moves forward, never back and forth. The aggregator then verifies
// the server with it: insecureSkipTLSVerify, which the API refuses next to
// a caBundle, goes.
func (c *Controller) ensureCABundle(ctx context.Context, bundle []byte) error {
	if c.apiService == "" {
		return nil
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		apiServices := c.aggregator.ApiregistrationV1().APIServices()
		s, err := apiServices.Get(ctx, c.apiService, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading APIService %s: %w", c.apiService, err)
		}
		if bytes.Equal(s.Spec.CABundle, bundle) && !s.Spec.InsecureSkipTLSVerify {
			return nil
		}
		if OlderBundle(bundle, s.Spec.CABundle) {
			// The Secret's watch brings this replica the newer one.
			klog.FromContext(ctx).V(2).Info("The APIService's caBundle is newer than this replica's Secret; leaving it", "apiService", c.apiService)
			return nil
		}
		s = s.DeepCopy()
		s.Spec.CABundle, s.Spec.InsecureSkipTLSVerify = bundle, false
		if _, err := apiServices.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			return err
		}
		klog.FromContext(ctx).Info("Set the APIService's caBundle", "apiService", c.apiService)
		return nil
	})
}
