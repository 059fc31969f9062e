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

package backing

import (
	"fmt"
	"net"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/pki"
)

const certValidity = 365 * 24 * time.Hour

// ServingNames are the DNS names of the inner kube-apiserver's certificate:
// the Service's, and the in-cluster names its own clients use.
func ServingNames(name, namespace string) []string {
	svc := sim.SimulatorServiceName(name)
	return []string{
		ServerName(name, namespace),
		svc,
		svc + "." + namespace,
		svc + "." + namespace + ".svc.cluster.local",
		"localhost",
		"kubernetes", "kubernetes.default", "kubernetes.default.svc",
	}
}

// ServerName is the name clients verify the inner kube-apiserver's
// certificate against, whatever address they dial (a Pod IP, say).
func ServerName(name, namespace string) string {
	return sim.SimulatorServiceName(name) + "." + namespace + ".svc"
}

// Secret builds the credentials Secret: a CA of the simulator's own, the
// inner apiserver's serving cert, an admin client cert and the
// service-account key pair.
func Secret(s *v1alpha1.Simulator) (*corev1.Secret, error) {
	ca, err := pki.NewCA(fmt.Sprintf("simulator-ca:%s/%s", s.Namespace, s.Name))
	if err != nil {
		return nil, err
	}
	caPair, err := ca.PEM()
	if err != nil {
		return nil, err
	}
	serving, err := ca.IssueServing(ServingNames(s.Name, s.Namespace), []net.IP{net.IPv4(127, 0, 0, 1)}, certValidity)
	if err != nil {
		return nil, err
	}
	// The admin certificate: the proxy acts as it and impersonates the
	// caller; the simulator server answers it alone.
	admin, err := ca.IssueClient(contract.AdminUser, []string{contract.AdminGroup}, certValidity)
	if err != nil {
		return nil, err
	}
	sa, err := pki.NewServiceAccountKey()
	if err != nil {
		return nil, err
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      sim.SimulatorSecretName(s.Name),
			Namespace: s.Namespace,
			Labels:    Labels(s),
			// Ours alone: a Secret of this name that is not is never used.
			OwnerReferences: []metav1.OwnerReference{OwnerReference(s)},
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{
			contract.FileCACert: caPair.CertPEM, contract.FileCAKey: caPair.KeyPEM,
			contract.FileServingCert: serving.CertPEM, contract.FileServingKey: serving.KeyPEM,
			contract.FileAdminCert: admin.CertPEM, contract.FileAdminKey: admin.KeyPEM,
			contract.FileServiceAccountKey: sa.KeyPEM, contract.FileServiceAccountPub: sa.CertPEM,
		},
	}, nil
}
