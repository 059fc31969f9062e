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
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
)

// Names under which sim-apiserver is registered with the host cluster, the
// same as in artifacts/deploy.
const (
	SimNamespace    = "sim-system"
	SimServiceName  = "sim-apiserver"
	SimAPIGroup     = "sim.x-k8s.io"
	SimAPIVersion   = "v1alpha1"
	SimAPIService   = SimAPIVersion + "." + SimAPIGroup
	simServiceDNS   = SimServiceName + "." + SimNamespace + ".svc"
	simReadyTimeout = time.Minute
)

// startSimAPIServer creates the sim-system namespace, starts sim-apiserver
// on a free loopback port and waits until it serves.
func startSimAPIServer(ctx context.Context, c *Cluster, binary string, extraArgs []string) (*process, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: SimNamespace}}
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating namespace %s: %w", SimNamespace, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	// The aggregator checks the serving certificate against the Service's
	// DNS name, whatever the ExternalName points at.
	serving, err := c.simCA.issueServing(c.pkiDir(), "sim-apiserver",
		[]string{simServiceDNS, "localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--secure-port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--tls-cert-file=" + serving.certFile,
		"--tls-private-key-file=" + serving.keyFile,
		"--kubeconfig=" + c.KubeconfigPath,
		"--authentication-kubeconfig=" + c.KubeconfigPath,
		"--authorization-kubeconfig=" + c.KubeconfigPath,
		"--namespace=" + SimNamespace,
		"--v=2",
	}, extraArgs...)
	p, err := startProcess(ctx, "sim-apiserver", c.logDir(), binary, args...)
	if err != nil {
		return nil, err
	}
	c.SimAPIServerPort = port
	return p, waitForSimAPIServer(ctx, c, p, port)
}

// waitForSimAPIServer waits until the sim-apiserver p serves on port.
func waitForSimAPIServer(ctx context.Context, c *Cluster, p *process, port int) error {
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.simCA.Pool()}}}
	url := loopbackURL("https", port) + "/readyz"
	err := waitFor(ctx, p, simReadyTimeout, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		// 401/403: serving, with anonymous requests turned off.
		return resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for sim-apiserver %s: %w", url, err)
	}
	return nil
}

// registerSimAPIServer routes sim.x-k8s.io through the host aggregator to
// the local sim-apiserver process, an ExternalName Service pointing at
// 127.0.0.1, and waits until the APIService is Available.
func registerSimAPIServer(ctx context.Context, c *Cluster, p *process) error {
	port := int32(c.SimAPIServerPort)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: SimServiceName, Namespace: SimNamespace},
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: "127.0.0.1",
			Ports: []corev1.ServicePort{{
				Name:       "https",
				Protocol:   corev1.ProtocolTCP,
				Port:       port,
				TargetPort: intstr.FromInt32(port),
			}},
		},
	}
	if _, err := c.Client.CoreV1().Services(SimNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating Service %s/%s: %w", SimNamespace, SimServiceName, err)
	}
	apiService := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: SimAPIService},
		Spec: apiregistrationv1.APIServiceSpec{
			Group:   SimAPIGroup,
			Version: SimAPIVersion,
			Service: &apiregistrationv1.ServiceReference{
				Namespace: SimNamespace,
				Name:      SimServiceName,
				Port:      &port,
			},
			CABundle:             c.simCA.certPEM(),
			GroupPriorityMinimum: 1000,
			VersionPriority:      15,
		},
	}
	client, err := aggregator.NewForConfig(c.Config)
	if err != nil {
		return fmt.Errorf("creating aggregator client: %w", err)
	}
	if _, err := client.ApiregistrationV1().APIServices().Create(ctx, apiService, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating APIService %s: %w", SimAPIService, err)
	}
	return waitForAPIService(ctx, client, p)
}

// waitForAPIService waits until the host aggregator finds the APIService
// of sim-apiserver p Available.
func waitForAPIService(ctx context.Context, client aggregator.Interface, p *process) error {
	var last *apiregistrationv1.APIServiceCondition
	err := waitFor(ctx, p, simReadyTimeout, func(ctx context.Context) (bool, error) {
		got, err := client.ApiregistrationV1().APIServices().Get(ctx, SimAPIService, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for i, cond := range got.Status.Conditions {
			if cond.Type == apiregistrationv1.Available {
				last = &got.Status.Conditions[i]
				return cond.Status == apiregistrationv1.ConditionTrue, nil
			}
		}
		return false, nil
	})
	if err != nil {
		if last != nil {
			err = fmt.Errorf("last condition %s=%s %s: %s: %w", last.Type, last.Status, last.Reason, last.Message, err)
		}
		return fmt.Errorf("waiting for APIService %s to be Available: %w", SimAPIService, err)
	}
	return nil
}

// waitForPublished waits until the host aggregator, which fetches them
// asynchronously after the APIService becomes Available, serves
// sim.x-k8s.io in its aggregated discovery (kubectl api-resources) and in
// its OpenAPI v3 (kubectl explain).
func waitForPublished(ctx context.Context, c *Cluster, p *process) error {
	groupVersion := SimAPIGroup + "/" + SimAPIVersion
	var missing string
	err := waitFor(ctx, p, simReadyTimeout, func(ctx context.Context) (bool, error) {
		_, resources, err := c.Client.Discovery().ServerGroupsAndResources()
		if err != nil {
			missing = fmt.Sprintf("discovery: %v", err)
			return false, nil
		}
		if !slices.ContainsFunc(resources, func(r *metav1.APIResourceList) bool {
			return r.GroupVersion == groupVersion && len(r.APIResources) > 0
		}) {
			missing = "discovery does not list " + groupVersion
			return false, nil
		}
		paths, err := c.Client.Discovery().OpenAPIV3().Paths()
		if err != nil {
			missing = fmt.Sprintf("OpenAPI v3: %v", err)
			return false, nil
		}
		if _, ok := paths["apis/"+groupVersion]; !ok {
			missing = "OpenAPI v3 does not list apis/" + groupVersion
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the host to publish %s (%s): %w", groupVersion, missing, err)
	}
	return nil
}
