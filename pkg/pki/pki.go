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

// Package pki makes the certificate authorities, certificates and keys of
// simulators (and of the local test cluster), in memory and PEM encoded.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math"
	"math/big"
	"net"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// CA is a certificate authority that can sign certificates.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// KeyPair is a PEM-encoded certificate and its private key.
type KeyPair struct {
	CertPEM []byte
	KeyPEM  []byte
}

// NewCA makes a self-signed CA (valid for 10 years, as client-go makes them).
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating key for CA %q: %w", commonName, err)
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: commonName}, key)
	if err != nil {
		return nil, fmt.Errorf("creating CA %q: %w", commonName, err)
	}
	return &CA{Cert: cert, Key: key}, nil
}

// LoadCA reads a CA back from its PEM-encoded certificate and key.
func LoadCA(certPEM, keyPEM []byte) (*CA, error) {
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("parsing CA certificate: %w", err)
	}
	key, err := keyutil.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("parsing CA key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("CA key of type %T cannot sign", key)
	}
	return &CA{Cert: certs[0], Key: signer}, nil
}

// PEM returns the CA's certificate and key PEM encoded.
func (ca *CA) PEM() (KeyPair, error) {
	certPEM, err := certutil.EncodeCertificates(ca.Cert)
	if err != nil {
		return KeyPair{}, fmt.Errorf("encoding CA certificate: %w", err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(ca.Key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("encoding CA key: %w", err)
	}
	return KeyPair{CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// Pool holds only this CA.
func (ca *CA) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return pool
}

// NewCAValidFrom makes a self-signed CA valid from notBefore for validity,
// for CAs that are rotated and so must say when they were made.
func NewCAValidFrom(commonName string, notBefore time.Time, validity time.Duration) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating key for CA %q: %w", commonName, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).SetInt64(math.MaxInt64))
	if err != nil {
		return nil, fmt.Errorf("generating serial number for CA %q: %w", commonName, err)
	}
	template := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             notBefore.UTC(),
		NotAfter:              notBefore.Add(validity).UTC(),
		KeyUsage:              x509.KeyUsageKeyEncipherment | x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("creating CA %q: %w", commonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key}, nil
}

// IssueServing signs a serving certificate for dnsNames (the first is the CN) and ips.
func (ca *CA) IssueServing(dnsNames []string, ips []net.IP, validity time.Duration) (KeyPair, error) {
	return ca.IssueServingValidFrom(dnsNames, ips, time.Now(), validity)
}

// IssueServingValidFrom is IssueServing for a certificate valid from now
// (less a minute of slack) for validity.
func (ca *CA) IssueServingValidFrom(dnsNames []string, ips []net.IP, now time.Time, validity time.Duration) (KeyPair, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: dnsNames[0]},
		DNSNames:    dnsNames,
		IPAddresses: ips,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, now, validity)
}

// IssueClient signs a client certificate for user (CN) in groups (O), the
// identity kube-apiserver's x509 authenticator reads.
func (ca *CA) IssueClient(user string, groups []string, validity time.Duration) (KeyPair, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, time.Now(), validity)
}

func (ca *CA) issue(template *x509.Certificate, now time.Time, validity time.Duration) (KeyPair, error) {
	name := template.Subject.CommonName
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generating key for %q: %w", name, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).SetInt64(math.MaxInt64))
	if err != nil {
		return KeyPair{}, fmt.Errorf("generating serial number for %q: %w", name, err)
	}
	template.SerialNumber = serial
	// A minute of slack for clocks that disagree a little.
	template.NotBefore = now.Add(-time.Minute).UTC()
	template.NotAfter = now.Add(validity).UTC()
	template.BasicConstraintsValid = true
	der, err := x509.CreateCertificate(rand.Reader, template, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("signing certificate %q: %w", name, err)
	}
	certPEM, err := certutil.EncodeCertificates(&x509.Certificate{Raw: der})
	if err != nil {
		return KeyPair{}, fmt.Errorf("encoding certificate %q: %w", name, err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("encoding key %q: %w", name, err)
	}
	return KeyPair{CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// NewServiceAccountKey makes the key pair that signs (KeyPEM) and verifies
// (CertPEM, the public key) service-account tokens.
func NewServiceAccountKey() (KeyPair, error) {
	keyPEM, err := keyutil.MakeEllipticPrivateKeyPEM()
	if err != nil {
		return KeyPair{}, fmt.Errorf("generating service account key: %w", err)
	}
	key, err := keyutil.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return KeyPair{}, err
	}
	der, err := x509.MarshalPKIXPublicKey(key.(*ecdsa.PrivateKey).Public())
	if err != nil {
		return KeyPair{}, fmt.Errorf("encoding service account public key: %w", err)
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	return KeyPair{CertPEM: pub, KeyPEM: keyPEM}, nil
}
