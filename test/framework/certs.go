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

package framework

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math"
	"math/big"
	"net"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// certValidity is how long the certificates of a test cluster are valid.
const certValidity = 24 * time.Hour

// certificateAuthority is a CA whose certificate and key are written to disk,
// able to sign serving and client certificates.
type certificateAuthority struct {
	cert     *x509.Certificate
	key      crypto.Signer
	certFile string
	keyFile  string
}

// keyPair is a certificate and key written to disk.
type keyPair struct {
	certFile string
	keyFile  string
	certPEM  []byte
	keyPEM   []byte
}

// newCA creates a self-signed CA named commonName and writes it to
// dir/<name>.crt and dir/<name>.key.
func newCA(dir, name, commonName string) (*certificateAuthority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating key for CA %q: %w", commonName, err)
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: commonName}, key)
	if err != nil {
		return nil, fmt.Errorf("creating CA %q: %w", commonName, err)
	}
	ca := &certificateAuthority{
		cert:     cert,
		key:      key,
		certFile: filepath.Join(dir, name+".crt"),
		keyFile:  filepath.Join(dir, name+".key"),
	}
	if err := writeKeyPair(ca.certFile, ca.keyFile, cert, key); err != nil {
		return nil, err
	}
	return ca, nil
}

// certPEM returns the CA certificate PEM encoded, as used for caBundle and
// certificate-authority-data.
func (ca *certificateAuthority) certPEM() []byte {
	data, _ := certutil.EncodeCertificates(ca.cert)
	return data
}

// pool returns a pool holding only the CA certificate.
func (ca *certificateAuthority) pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return pool
}

// issueServing signs a serving certificate for the given DNS names and IPs
// and writes it to dir/<name>.crt and dir/<name>.key.
func (ca *certificateAuthority) issueServing(dir, name string, dnsNames []string, ips []net.IP) (*keyPair, error) {
	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: dnsNames[0]},
		DNSNames:    dnsNames,
		IPAddresses: ips,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	return ca.issue(dir, name, template)
}

// issueClient signs a client certificate for user (CN) and groups (O) and
// writes it to dir/<name>.crt and dir/<name>.key.
func (ca *certificateAuthority) issueClient(dir, name, user string, groups []string) (*keyPair, error) {
	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return ca.issue(dir, name, template)
}

func (ca *certificateAuthority) issue(dir, name string, template *x509.Certificate) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating key for %q: %w", name, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).SetInt64(math.MaxInt64))
	if err != nil {
		return nil, fmt.Errorf("generating serial number for %q: %w", name, err)
	}
	now := time.Now()
	template.SerialNumber = serial
	template.NotBefore = now.Add(-time.Minute).UTC()
	template.NotAfter = now.Add(certValidity).UTC()
	template.BasicConstraintsValid = true
	der, err := x509.CreateCertificate(rand.Reader, template, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, fmt.Errorf("signing certificate %q: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing certificate %q: %w", name, err)
	}
	pair := &keyPair{
		certFile: filepath.Join(dir, name+".crt"),
		keyFile:  filepath.Join(dir, name+".key"),
	}
	if pair.certPEM, err = certutil.EncodeCertificates(cert); err != nil {
		return nil, fmt.Errorf("encoding certificate %q: %w", name, err)
	}
	if pair.keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key); err != nil {
		return nil, fmt.Errorf("encoding key %q: %w", name, err)
	}
	if err := writePEMs(pair.certFile, pair.keyFile, pair.certPEM, pair.keyPEM); err != nil {
		return nil, err
	}
	return pair, nil
}

// newServiceAccountKey writes a private key for signing and verifying
// service account tokens to dir/sa.key; kube-apiserver reads the public key
// from the same file.
func newServiceAccountKey(dir string) (string, error) {
	keyPEM, err := keyutil.MakeEllipticPrivateKeyPEM()
	if err != nil {
		return "", fmt.Errorf("generating service account key: %w", err)
	}
	file := filepath.Join(dir, "sa.key")
	if err := keyutil.WriteKey(file, keyPEM); err != nil {
		return "", fmt.Errorf("writing service account key: %w", err)
	}
	return file, nil
}

func writeKeyPair(certFile, keyFile string, cert *x509.Certificate, key crypto.Signer) error {
	certPEM, err := certutil.EncodeCertificates(cert)
	if err != nil {
		return fmt.Errorf("encoding certificate %s: %w", certFile, err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return fmt.Errorf("encoding key %s: %w", keyFile, err)
	}
	return writePEMs(certFile, keyFile, certPEM, keyPEM)
}

func writePEMs(certFile, keyFile string, certPEM, keyPEM []byte) error {
	if err := certutil.WriteCert(certFile, certPEM); err != nil {
		return fmt.Errorf("writing %s: %w", certFile, err)
	}
	if err := keyutil.WriteKey(keyFile, keyPEM); err != nil {
		return fmt.Errorf("writing %s: %w", keyFile, err)
	}
	return nil
}
