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

package simulator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
)

// PurgeEtcd deletes every key under prefix in the etcd at etcdURL: what the
// simulator's inner kube-apiserver stored there.
// tlsConfig, when not nil, holds the client certificate of
// spec.etcdTLSSecretName.
func PurgeEtcd(ctx context.Context, etcdURL, prefix string, tlsConfig *tls.Config) error {
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{etcdURL},
		TLS:         tlsConfig,
		DialTimeout: 5 * time.Second,
		Context:     ctx,
	})
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", etcdURL, err)
	}
	defer client.Close() //nolint:errcheck
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// The trailing slash keeps /simulators/ns/a from matching /simulators/ns/ab.
	if _, err := client.Delete(ctx, prefix+"/", clientv3.WithPrefix()); err != nil {
		return fmt.Errorf("deleting keys under %s: %w", prefix, err)
	}
	return nil
}

// EtcdTLS is the client TLS configuration of a spec.etcdTLSSecretName
// Secret: tls.crt and tls.key the client certificate, ca.crt etcd's CA.
func EtcdTLS(secret *corev1.Secret) (*tls.Config, error) {
	pair, err := tls.X509KeyPair(secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(secret.Data[corev1.ServiceAccountRootCAKey]) {
		return nil, fmt.Errorf("secret %s/%s: no CA certificate in %s", secret.Namespace, secret.Name, corev1.ServiceAccountRootCAKey)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: roots, MinVersion: tls.VersionTLS12}, nil
}
