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
	"crypto/rand"
	"fmt"
	"net"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/pki"
)

const certValidity = 365 * 24 * time.Hour

// ServingNames are the DNS names of the inner kube-apiserver's certificate:
// the Service's, and the in-cluster names its own clients use. A hosted
// simulator's Service is in the hosting namespace, whose names are added
// (status.kubeAPIServerURL points there); ServerName stays that of the
// simulator's namespace, which the server verifies whatever the route.
func ServingNames(name, namespace string, place Placement) []string {
	svc := sim.SimulatorServiceName(name)
	names := []string{
		ServerName(name, namespace),
		svc,
		svc + "." + namespace,
		svc + "." + namespace + ".svc.cluster.local",
		"localhost",
		"kubernetes", "kubernetes.default", "kubernetes.default.svc",
	}
	if place.Hosted && place.Namespace != namespace {
		names = append(names,
			ServerName(name, place.Namespace),
			svc+"."+place.Namespace,
			svc+"."+place.Namespace+".svc.cluster.local",
		)
	}
	return names
}

// ServerName is the name clients verify the inner kube-apiserver's
// certificate against, whatever address they dial (a Pod IP, say).
func ServerName(name, namespace string) string {
	return sim.SimulatorServiceName(name) + "." + namespace + ".svc"
}

// Secret builds the credentials Secret, where place says: a CA of the
// simulator's own, the inner apiserver's serving cert, an admin client
// cert and the service-account key pair; and, hosted, the hop gate's token
// (contract.FileHopToken), without which the simulator refuses every
// request through the hosting cluster.
func Secret(s *v1alpha1.Simulator, place Placement) (*corev1.Secret, error) {
	ca, err := pki.NewCA(fmt.Sprintf("simulator-ca:%s/%s", s.Namespace, s.Name))
	if err != nil {
		return nil, err
	}
	caPair, err := ca.PEM()
	if err != nil {
		return nil, err
	}
	serving, err := ca.IssueServing(ServingNames(s.Name, s.Namespace, place), []net.IP{net.IPv4(127, 0, 0, 1)}, certValidity)
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
	secret := &corev1.Secret{
		// Ours alone: a Secret of this name that is not is never used.
		ObjectMeta: place.objectMeta(s, sim.SimulatorSecretName(s.Name)),
		Type:       corev1.SecretTypeOpaque,
		Data: map[string][]byte{
			contract.FileCACert: caPair.CertPEM, contract.FileCAKey: caPair.KeyPEM,
			contract.FileServingCert: serving.CertPEM, contract.FileServingKey: serving.KeyPEM,
			contract.FileAdminCert: admin.CertPEM, contract.FileAdminKey: admin.KeyPEM,
			contract.FileServiceAccountKey: sa.KeyPEM, contract.FileServiceAccountPub: sa.CertPEM,
		},
	}
	secret.Labels = Labels(s)
	if place.Hosted {
		secret.Data[contract.FileHopToken] = []byte(hopToken())
	}
	return secret, nil
}

// hopToken is a new hop gate token: at least 256 random bits, in a form a header
// carries as is.
func hopToken() string {
	// crypto/rand.Text never fails: it panics if the system's source does.
	return rand.Text() + rand.Text()
}
