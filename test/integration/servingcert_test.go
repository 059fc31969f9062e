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

package integration

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certutil "k8s.io/client-go/util/cert"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"sigs.k8s.io/simulator-apiserver/pkg/servingcert"
)

// listener counts the generic server's reloads of the served certificate.
type listener struct{ n int }

func (l *listener) Enqueue() { l.n++ }

// TestServingCertificate runs two replicas' certificate controllers against
// the host: one Secret for both, the APIService's caBundle set to its CA
// (insecureSkipTLSVerify cleared), a renewal by the same CA that leaves the
// caBundle alone, a CA rotation that bundles the old and new CA, and a
// planted Secret of the same name refused and left as it was.
func TestServingCertificate(t *testing.T) {
	cluster := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "servingcert")
	agg, err := aggregator.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	port := int32(443)
	apiService := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.servingcert.test.example"},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: "servingcert.test.example", Version: "v1",
			Service:               &apiregistrationv1.ServiceReference{Namespace: ns, Name: "server", Port: &port},
			InsecureSkipTLSVerify: true,
			GroupPriorityMinimum:  1000, VersionPriority: 15,
		},
	}
	if _, err := agg.ApiregistrationV1().APIServices().Create(ctx, apiService, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// An APIService whose Service does not exist makes the host's discovery
	// incomplete, and the namespace controller deletes no namespace while it
	// is: it must be gone before the next test. t.Context() is done by the
	// time cleanups run.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := agg.ApiregistrationV1().APIServices().Delete(ctx, apiService.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting APIService %s: %v", apiService.Name, err)
		}
	})

	policy := servingcert.DefaultPolicy("server." + ns + ".svc")
	now := time.Now()
	replicas := make([]*servingcert.Controller, 2)
	listeners := make([]*listener, 2)
	for i := range replicas {
		c, err := servingcert.New(cluster.Client, agg, ns, "serving-cert", apiService.Name, policy)
		if err != nil {
			t.Fatal(err)
		}
		c.Now = func() time.Time { return now }
		listeners[i] = &listener{}
		c.AddListener(listeners[i])
		replicas[i] = c
	}
	sync := func(step string) *corev1.Secret {
		t.Helper()
		for i, c := range replicas {
			if _, err := c.Sync(ctx); err != nil {
				t.Fatalf("%s: replica %d: %v", step, i, err)
			}
		}
		secret, err := cluster.Client.CoreV1().Secrets(ns).Get(ctx, "serving-cert", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range replicas {
			if cert, _ := c.CurrentCertKeyContent(); !bytes.Equal(cert, secret.Data[corev1.TLSCertKey]) {
				t.Errorf("%s: replica %d serves another certificate than the Secret's", step, i)
			}
		}
		got, err := agg.ApiregistrationV1().APIServices().Get(ctx, apiService.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Spec.CABundle, secret.Data[servingcert.CABundleKey]) || got.Spec.InsecureSkipTLSVerify {
			t.Errorf("%s: APIService caBundle is not the Secret's CA bundle (insecureSkipTLSVerify %v)", step, got.Spec.InsecureSkipTLSVerify)
		}
		return secret
	}

	first := sync("first start")
	if first.Labels[servingcert.ManagedByLabel] != servingcert.ManagedBy || first.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret labels %v type %s", first.Labels, first.Type)
	}
	if again := sync("a resync"); again.ResourceVersion != first.ResourceVersion {
		t.Errorf("a resync changed the Secret")
	}

	now = now.Add(policy.CertValidity * 3 / 4)
	renewed := sync("renewal")
	if bytes.Equal(renewed.Data[corev1.TLSCertKey], first.Data[corev1.TLSCertKey]) {
		t.Error("the certificate was not renewed with a quarter of its life left")
	}
	if !bytes.Equal(renewed.Data[servingcert.CABundleKey], first.Data[servingcert.CABundleKey]) {
		t.Error("a certificate renewal changed the CA bundle")
	}
	for i, l := range listeners {
		if l.n != 2 {
			t.Errorf("replica %d reloaded its certificate %d times, want 2 (start, renewal)", i, l.n)
		}
	}

	now = now.Add(policy.CAValidity * 3 / 4)
	rotated := sync("CA rotation")
	cas, err := certutil.ParseCertsPEM(rotated.Data[servingcert.CABundleKey])
	if err != nil {
		t.Fatal(err)
	}
	if len(cas) != 2 || !strings.Contains(string(rotated.Data[servingcert.CABundleKey]), strings.TrimSpace(string(first.Data[servingcert.CABundleKey]))) {
		t.Errorf("after a CA rotation the bundle has %d CAs, want the new one and the old one", len(cas))
	}

	// Someone else's Secret under the name: refused, never overwritten.
	planted := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "planted", Namespace: ns},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: first.Data[corev1.TLSCertKey], corev1.TLSPrivateKeyKey: first.Data[corev1.TLSPrivateKeyKey]},
	}
	if planted, err = cluster.Client.CoreV1().Secrets(ns).Create(ctx, planted, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := servingcert.New(cluster.Client, agg, ns, "planted", apiService.Name, policy)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sync(ctx); err == nil || !strings.Contains(err.Error(), "is not sim-apiserver's") {
		t.Errorf("a planted Secret: %v, want refused as not sim-apiserver's", err)
	}
	if cert, _ := c.CurrentCertKeyContent(); cert != nil {
		t.Error("the planted Secret's certificate is served")
	}
	after, err := cluster.Client.CoreV1().Secrets(ns).Get(ctx, "planted", metav1.GetOptions{})
	if err != nil || after.ResourceVersion != planted.ResourceVersion {
		t.Errorf("the planted Secret was changed (%v)", err)
	}
}
