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
	"crypto/x509"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	certutil "k8s.io/client-go/util/cert"
)

var testPolicy = Policy{
	Hosts:        []string{"sim-apiserver.sim-system.svc", "sim-apiserver.sim-system"},
	CAValidity:   30 * 24 * time.Hour,
	CertValidity: 9 * 24 * time.Hour,
	Overlap:      24 * time.Hour,
}

// verifies says whether data's serving certificate chains, at now, to a CA
// of bundle: a client holding bundle accepts it.
func verifies(t *testing.T, now time.Time, data map[string][]byte, bundle []byte) bool {
	t.Helper()
	cert := servingCert(data)
	if cert == nil {
		t.Fatal("no serving certificate")
	}
	cas, err := certutil.ParseCertsPEM(bundle)
	if err != nil {
		t.Fatal(err)
	}
	return trusted(now, cert, cas)
}

// TestRotationWithoutDowntime walks 100 days in steps of a day, three CA
// lifetimes: at every step a client that still holds the previous caBundle
// accepts the new certificate, and a client that holds the new caBundle
// accepts the certificate a slower replica still serves.
func TestRotationWithoutDowntime(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	data, changed, err := Next(now, nil, testPolicy)
	if err != nil || !changed {
		t.Fatalf("first Next: changed %v, %v", changed, err)
	}
	if !verifies(t, now, data, data[CABundleKey]) {
		t.Fatal("the first certificate does not verify with its own bundle")
	}
	if again, changed, err := Next(now, data, testPolicy); err != nil || changed || !bytes.Equal(again[corev1.TLSCertKey], data[corev1.TLSCertKey]) {
		t.Fatalf("Next on fresh data changed it (%v, %v)", changed, err)
	}
	var certRenewals, caRotations, sameCARenewals int
	for day := 1; day <= 100; day++ {
		now = now.Add(24 * time.Hour)
		next, changed, err := Next(now, data, testPolicy)
		if err != nil {
			t.Fatal(err)
		}
		if !changed {
			if !verifies(t, now, data, data[CABundleKey]) {
				t.Fatalf("day %d: unchanged data whose certificate does not verify", day)
			}
			continue
		}
		if !verifies(t, now, next, data[CABundleKey]) {
			t.Fatalf("day %d: the new certificate does not verify with the caBundle clients hold", day)
		}
		if !verifies(t, now, data, next[CABundleKey]) {
			t.Fatalf("day %d: the old certificate does not verify with the new caBundle", day)
		}
		if !bytes.Equal(next[corev1.TLSCertKey], data[corev1.TLSCertKey]) {
			certRenewals++
			if bytes.Equal(next[CAKeyKey], data[CAKeyKey]) && bytes.Equal(next[CABundleKey], data[CABundleKey]) {
				sameCARenewals++
			}
		}
		if !bytes.Equal(next[CABundleKey], data[CABundleKey]) && (!OlderBundle(data[CABundleKey], next[CABundleKey]) || OlderBundle(next[CABundleKey], data[CABundleKey])) {
			t.Errorf("day %d: the new caBundle is not newer than the old one (OlderBundle)", day)
		}
		if !bytes.Equal(next[CAKeyKey], data[CAKeyKey]) {
			caRotations++
			if n := len(mustParse(t, next[CABundleKey])); n != 2 {
				t.Errorf("day %d: a new CA and %d in the bundle, want the old and the new", day, n)
			}
		}
		if at := NextCheck(now, next, testPolicy); !at.After(now) {
			t.Errorf("day %d: next check %v is not after now", day, at)
		}
		data = next
	}
	if caRotations < 3 || sameCARenewals < 3 || certRenewals < 10 {
		t.Errorf("in 100 days: %d CA rotations, %d renewals (%d by the same CA), want ≥3, ≥10, ≥3", caRotations, certRenewals, sameCARenewals)
	}
	for _, ca := range mustParse(t, data[CABundleKey]) {
		if now.After(ca.NotAfter) {
			t.Errorf("expired CA %s still in the bundle", ca.Subject.CommonName)
		}
	}
}

// TestNextReissues covers the certificates that cannot wait: another host
// name, and a key that is not the certificate's.
func TestNextReissues(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	data, _, err := Next(now, nil, testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	other := testPolicy
	other.Hosts = []string{"other.sim-system.svc"}
	next, changed, err := Next(now, data, other)
	if err != nil || !changed || !bytes.Equal(next[CABundleKey], data[CABundleKey]) {
		t.Fatalf("new hosts: changed %v, same CA %v, %v; want a new certificate by the same CA", changed, bytes.Equal(next[CABundleKey], data[CABundleKey]), err)
	}
	if got := servingCert(next).DNSNames; got[0] != "other.sim-system.svc" {
		t.Errorf("DNS names %v", got)
	}
	broken := map[string][]byte{}
	for k, v := range data {
		broken[k] = v
	}
	broken[corev1.TLSPrivateKeyKey] = next[corev1.TLSPrivateKeyKey]
	fixed, changed, err := Next(now, broken, testPolicy)
	if err != nil || !changed || !verifies(t, now, fixed, data[CABundleKey]) {
		t.Fatalf("mismatched key: changed %v, %v; want a new certificate by the same CA", changed, err)
	}
}

func TestPolicyValidate(t *testing.T) {
	p := DefaultPolicy("a.b.svc")
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.Overlap = p.CertValidity
	if err := p.Validate(); err == nil {
		t.Error("an overlap as long as the certificate's life passed")
	}
}

func mustParse(t *testing.T, pemBytes []byte) []*x509.Certificate {
	t.Helper()
	certs, err := certutil.ParseCertsPEM(pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	return certs
}
