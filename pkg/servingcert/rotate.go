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

// Package servingcert keeps sim-apiserver's serving certificate and the CA
// that signs it in a Secret of the server's namespace, serves it, and keeps
// the APIService's caBundle equal to the CA, so that the host's aggregator
// verifies every replica and certificates rotate without downtime.
package servingcert

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	"sigs.k8s.io/simulator-apiserver/pkg/pki"
)

// Keys of the Secret besides tls.crt and tls.key (the serving certificate
// and key, as in a kubernetes.io/tls Secret).
const (
	// CABundleKey holds every CA clients must trust, newest first: during a
	// CA rotation the old and the new one.
	CABundleKey = "ca.crt"
	// CAKeyKey holds the key of the newest CA, the one that signs.
	CAKeyKey = "ca.key"
)

// Policy says how long certificates live and what they are for.
type Policy struct {
	// Hosts are the serving certificate's DNS names; the aggregator checks
	// <service>.<namespace>.svc.
	Hosts []string
	// CAValidity and CertValidity are the lifetimes. Each is renewed when a
	// third of it is left.
	CAValidity, CertValidity time.Duration
	// Overlap is how long a new CA is in the bundle before it signs the
	// serving certificate: the time the bundle needs to reach every client
	// (the APIService and the aggregator's cache of it).
	Overlap time.Duration
}

// DefaultPolicy serves hosts with a 5-year CA and 1-year certificates.
func DefaultPolicy(hosts ...string) Policy {
	return Policy{Hosts: hosts, CAValidity: 5 * 365 * 24 * time.Hour, CertValidity: 365 * 24 * time.Hour, Overlap: 24 * time.Hour}
}

// Validate checks that a rotation can happen without downtime: the new CA
// must be trusted before the old certificate ends.
func (p Policy) Validate() error {
	switch {
	case len(p.Hosts) == 0:
		return fmt.Errorf("a serving certificate needs at least one host name")
	case p.CertValidity <= 0 || p.CAValidity <= 0:
		return fmt.Errorf("validities must be positive")
	case p.Overlap >= p.CertValidity/3 || p.Overlap >= p.CAValidity/3:
		return fmt.Errorf("overlap %v must be shorter than a third of every validity", p.Overlap)
	}
	return nil
}

// Next returns the Secret data that should be at now, given the current
// data (nil for none), and whether it differs from it. It is a pure
// function of its inputs (besides fresh keys), so that every replica that
// runs it on the same data agrees, and a test can move the clock.
//
// Rotation without downtime:
//   - The serving certificate is re-signed by the same CA when a third of
//     its life is left: clients trust that CA already.
//   - The CA is renewed when a third of its life is left: the new CA joins
//     the bundle (ca.crt, kept in the APIService's caBundle) next to the old
//     one, and signs the serving certificate only after Overlap, when every
//     client trusts it. The old CA leaves the bundle when it expires.
func Next(now time.Time, data map[string][]byte, p Policy) (map[string][]byte, bool, error) {
	cas := liveCAs(now, data[CABundleKey])
	signer := loadSigner(data, cas)
	next := map[string][]byte{CAKeyKey: data[CAKeyKey]}
	if signer == nil || !now.Before(renewAt(signer.Cert.NotBefore, signer.Cert.NotAfter, p.CAValidity)) {
		ca, err := pki.NewCAValidFrom(fmt.Sprintf("sim-apiserver-ca@%d", now.Unix()), now.Add(-time.Minute), p.CAValidity)
		if err != nil {
			return nil, false, err
		}
		pair, err := ca.PEM()
		if err != nil {
			return nil, false, err
		}
		signer, next[CAKeyKey] = ca, pair.KeyPEM
		cas = slices.Insert(cas, 0, ca.Cert)
	}
	bundle, err := certutil.EncodeCertificates(cas...)
	if err != nil {
		return nil, false, err
	}
	next[CABundleKey] = bundle

	next[corev1.TLSCertKey], next[corev1.TLSPrivateKeyKey] = data[corev1.TLSCertKey], data[corev1.TLSPrivateKeyKey]
	if reissue(now, data, cas, signer, p) {
		pair, err := signer.IssueServingValidFrom(p.Hosts, nil, now, p.CertValidity)
		if err != nil {
			return nil, false, err
		}
		next[corev1.TLSCertKey], next[corev1.TLSPrivateKeyKey] = pair.CertPEM, pair.KeyPEM
	}
	changed := len(next) != len(data)
	for k, v := range next {
		changed = changed || !bytes.Equal(v, data[k])
	}
	return next, changed, nil
}

// NextCheck is when Next must run again at the latest for data: the next
// renewal or the end of an overlap.
func NextCheck(now time.Time, data map[string][]byte, p Policy) time.Time {
	cas := liveCAs(now, data[CABundleKey])
	cert := servingCert(data)
	if len(cas) == 0 || cert == nil {
		return now
	}
	times := []time.Time{renewAt(cas[0].NotBefore, cas[0].NotAfter, p.CAValidity), renewAt(cert.NotBefore, cert.NotAfter, p.CertValidity)}
	if !signedBy(cert, cas[0]) {
		times = append(times, cas[0].NotBefore.Add(p.Overlap))
	}
	for _, ca := range cas[1:] {
		times = append(times, ca.NotAfter)
	}
	return slices.MinFunc(times, time.Time.Compare)
}

// OlderBundle says whether CA bundle a is older than bundle b, in the
// order Next makes them: a new CA joins first, the oldest leaves when it
// expires ([c1], [c2 c1], [c2], [c3 c2], …), so the bundle whose newest CA,
// then whose oldest CA, began later is the newer. A bundle without a CA
// (empty, not PEM) is older than any other; b without one is older than a.
func OlderBundle(a, b []byte) bool {
	aNewest, aOldest, aOK := bundleAge(a)
	bNewest, bOldest, bOK := bundleAge(b)
	switch {
	case !bOK:
		return false
	case !aOK:
		return true
	case !aNewest.Equal(bNewest):
		return aNewest.Before(bNewest)
	}
	return aOldest.Before(bOldest)
}

// bundleAge returns when a bundle's newest and oldest CAs began.
func bundleAge(bundle []byte) (newest, oldest time.Time, ok bool) {
	cas := bundleCAs(bundle)
	if len(cas) == 0 {
		return time.Time{}, time.Time{}, false
	}
	byStart := func(a, b *x509.Certificate) int { return a.NotBefore.Compare(b.NotBefore) }
	return slices.MaxFunc(cas, byStart).NotBefore, slices.MinFunc(cas, byStart).NotBefore, true
}

// reissue says whether the serving certificate must be signed anew.
func reissue(now time.Time, data map[string][]byte, cas []*x509.Certificate, signer *pki.CA, p Policy) bool {
	cert := servingCert(data)
	if cert == nil || !slices.Equal(cert.DNSNames, p.Hosts) || !trusted(now, cert, cas) {
		// Unusable: sign it now, whatever the overlap.
		return true
	}
	newCATrusted := !now.Before(signer.Cert.NotBefore.Add(p.Overlap))
	if !signedBy(cert, signer.Cert) {
		// Move to the new CA once every client trusts it.
		return newCATrusted
	}
	return !now.Before(renewAt(cert.NotBefore, cert.NotAfter, p.CertValidity))
}

// renewAt is when a third of the life from notBefore to notAfter is left
// (validity bounds it for certificates that were made longer).
func renewAt(notBefore, notAfter time.Time, validity time.Duration) time.Time {
	life := min(notAfter.Sub(notBefore), validity)
	return notBefore.Add(life * 2 / 3)
}

// liveCAs are the CAs of a bundle that have not expired.
func liveCAs(now time.Time, bundle []byte) []*x509.Certificate {
	return slices.DeleteFunc(bundleCAs(bundle), func(c *x509.Certificate) bool { return now.After(c.NotAfter) })
}

// bundleCAs are the CA certificates of a PEM bundle; none if it is not one.
func bundleCAs(bundle []byte) []*x509.Certificate {
	if len(bundle) == 0 {
		return nil
	}
	certs, err := certutil.ParseCertsPEM(bundle)
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(certs, func(c *x509.Certificate) bool { return !c.IsCA })
}

// loadSigner is the newest CA with its key, nil if the key is not its.
func loadSigner(data map[string][]byte, cas []*x509.Certificate) *pki.CA {
	if len(cas) == 0 {
		return nil
	}
	key, err := keyutil.ParsePrivateKeyPEM(data[CAKeyKey])
	if err != nil {
		return nil
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil
	}
	pub, ok := signer.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(cas[0].PublicKey) {
		return nil
	}
	return &pki.CA{Cert: cas[0], Key: signer}
}

// servingCert is the Secret's serving certificate if its key matches it.
func servingCert(data map[string][]byte) *x509.Certificate {
	pair, err := tls.X509KeyPair(data[corev1.TLSCertKey], data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return nil
	}
	return pair.Leaf
}

func signedBy(cert, ca *x509.Certificate) bool {
	return cert.CheckSignatureFrom(ca) == nil
}

// trusted says whether cert is valid at now for serving, chained to cas.
func trusted(now time.Time, cert *x509.Certificate, cas []*x509.Certificate) bool {
	roots := x509.NewCertPool()
	for _, ca := range cas {
		roots.AddCert(ca)
	}
	_, err := cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err == nil
}
