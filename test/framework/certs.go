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
	"fmt"
	"net"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	"sigs.k8s.io/simulator-apiserver/pkg/pki"
)

// certValidity is how long the certificates of a test cluster are valid.
const certValidity = 24 * time.Hour

// certificateAuthority is a pki.CA whose certificate and key are also
// written to disk, for the components that read files.
type certificateAuthority struct {
	*pki.CA
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
	ca, err := pki.NewCA(commonName)
	if err != nil {
		return nil, err
	}
	pair, err := ca.PEM()
	if err != nil {
		return nil, err
	}
	written, err := writePair(dir, name, pair)
	if err != nil {
		return nil, err
	}
	return &certificateAuthority{CA: ca, certFile: written.certFile, keyFile: written.keyFile}, nil
}

// certPEM returns the CA certificate PEM encoded, as used for caBundle and
// certificate-authority-data.
func (ca *certificateAuthority) certPEM() []byte {
	data, _ := certutil.EncodeCertificates(ca.Cert)
	return data
}

// issueServing signs a serving certificate for the given DNS names and IPs
// and writes it to dir/<name>.crt and dir/<name>.key.
func (ca *certificateAuthority) issueServing(dir, name string, dnsNames []string, ips []net.IP) (*keyPair, error) {
	pair, err := ca.IssueServing(dnsNames, ips, certValidity)
	if err != nil {
		return nil, fmt.Errorf("issuing %s: %w", name, err)
	}
	return writePair(dir, name, pair)
}

// issueClient signs a client certificate for user (CN) and groups (O) and
// writes it to dir/<name>.crt and dir/<name>.key.
func (ca *certificateAuthority) issueClient(dir, name, user string, groups []string) (*keyPair, error) {
	pair, err := ca.IssueClient(user, groups, certValidity)
	if err != nil {
		return nil, fmt.Errorf("issuing %s: %w", name, err)
	}
	return writePair(dir, name, pair)
}

// newServiceAccountKey writes a private key for signing and verifying
// service account tokens to dir/sa.key; kube-apiserver reads the public key
// from the same file.
func newServiceAccountKey(dir string) (string, error) {
	pair, err := pki.NewServiceAccountKey()
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "sa.key")
	if err := keyutil.WriteKey(file, pair.KeyPEM); err != nil {
		return "", fmt.Errorf("writing service account key: %w", err)
	}
	return file, nil
}

// writePair writes pair to dir/<name>.crt and dir/<name>.key.
func writePair(dir, name string, pair pki.KeyPair) (*keyPair, error) {
	out := &keyPair{
		certFile: filepath.Join(dir, name+".crt"),
		keyFile:  filepath.Join(dir, name+".key"),
		certPEM:  pair.CertPEM,
		keyPEM:   pair.KeyPEM,
	}
	if err := certutil.WriteCert(out.certFile, out.certPEM); err != nil {
		return nil, fmt.Errorf("writing %s: %w", out.certFile, err)
	}
	if err := keyutil.WriteKey(out.keyFile, out.keyPEM); err != nil {
		return nil, fmt.Errorf("writing %s: %w", out.keyFile, err)
	}
	return out, nil
}
