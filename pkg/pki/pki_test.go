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

package pki

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"

	certutil "k8s.io/client-go/util/cert"
)

func TestIssuedCertificatesVerify(t *testing.T) {
	ca, err := NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := ca.PEM()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadCA(caPEM.CertPEM, caPEM.KeyPEM)
	if err != nil {
		t.Fatalf("LoadCA: %v", err)
	}
	serving, err := loaded.IssueServing([]string{"sim-a.ns.svc", "localhost"}, []net.IP{net.ParseIP("127.0.0.1")}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	client, err := loaded.IssueClient("alice", []string{"system:masters"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		pair  KeyPair
		usage x509.ExtKeyUsage
		check func(*x509.Certificate) error
	}{
		"serving": {serving, x509.ExtKeyUsageServerAuth, func(c *x509.Certificate) error { return c.VerifyHostname("sim-a.ns.svc") }},
		"client": {client, x509.ExtKeyUsageClientAuth, func(c *x509.Certificate) error {
			if c.Subject.CommonName != "alice" || len(c.Subject.Organization) != 1 || c.Subject.Organization[0] != "system:masters" {
				t.Errorf("client subject = %v", c.Subject)
			}
			return nil
		}},
	} {
		if _, err := tls.X509KeyPair(tc.pair.CertPEM, tc.pair.KeyPEM); err != nil {
			t.Errorf("%s: cert and key do not match: %v", name, err)
		}
		certs, err := certutil.ParseCertsPEM(tc.pair.CertPEM)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := certs[0].Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{tc.usage}}); err != nil {
			t.Errorf("%s: does not verify against the CA: %v", name, err)
		}
		if err := tc.check(certs[0]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	other, _ := NewCA("other")
	certs, _ := certutil.ParseCertsPEM(serving.CertPEM)
	if _, err := certs[0].Verify(x509.VerifyOptions{Roots: other.Pool()}); err == nil {
		t.Error("a certificate must not verify against another CA")
	}
	sa, err := NewServiceAccountKey()
	if err != nil || len(sa.CertPEM) == 0 || len(sa.KeyPEM) == 0 {
		t.Errorf("NewServiceAccountKey: %v", err)
	}
}
