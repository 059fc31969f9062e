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
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"

	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
)

const (
	// serviceClusterIPRange is the host cluster's service CIDR; its first
	// address is the kubernetes Service's ClusterIP.
	serviceClusterIPRange = "10.0.0.0/24"
	kubernetesServiceIP   = "10.0.0.1"
	serviceAccountIssuer  = "https://kubernetes.default.svc.cluster.local"
	// frontProxyClientName is the CN of the client certificate the
	// aggregator presents to aggregated API servers.
	frontProxyClientName = "front-proxy-client"
)

// startKubeAPIServer starts kube-apiserver on a free port of c.bindIP
// (loopback, or the node address) with aggregation configured and waits
// until /readyz succeeds. It sets c.Config and c.Client to an admin client.
func startKubeAPIServer(ctx context.Context, c *Cluster, binary, etcdURL string, extraArgs []string) (*process, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pki := c.pkiDir()
	ips := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(kubernetesServiceIP)}
	if bind := net.ParseIP(c.bindIP); !bind.IsLoopback() {
		ips = append(ips, bind)
	}
	serving, err := c.clusterCA.issueServing(pki, "kube-apiserver",
		[]string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "localhost"}, ips)
	if err != nil {
		return nil, err
	}
	proxyClient, err := c.frontProxyCA.issueClient(pki, frontProxyClientName, frontProxyClientName, nil)
	if err != nil {
		return nil, err
	}
	c.frontProxyClient = proxyClient
	// For logs, exec and port-forward through the kubelet.
	kubeletClient, err := c.clusterCA.issueClient(pki, "kube-apiserver-kubelet-client", "kube-apiserver-kubelet-client", []string{"system:masters"})
	if err != nil {
		return nil, err
	}
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=" + c.bindIP,
		"--advertise-address=" + c.bindIP,
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(c.Dir, "kube-apiserver"),
		"--tls-cert-file=" + serving.certFile,
		"--tls-private-key-file=" + serving.keyFile,
		"--client-ca-file=" + c.clusterCA.certFile,
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=" + serviceAccountIssuer,
		"--service-account-key-file=" + c.serviceAccountKey,
		"--service-account-signing-key-file=" + c.serviceAccountKey,
		"--service-cluster-ip-range=" + serviceClusterIPRange,
		"--allow-privileged=true",
		// Aggregation: the aggregator authenticates to aggregated servers
		// with the proxy client certificate and passes the user in headers.
		"--requestheader-client-ca-file=" + c.frontProxyCA.certFile,
		"--requestheader-allowed-names=" + frontProxyClientName,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + proxyClient.certFile,
		"--proxy-client-key-file=" + proxyClient.keyFile,
		"--kubelet-client-certificate=" + kubeletClient.certFile,
		"--kubelet-client-key=" + kubeletClient.keyFile,
		"--kubelet-certificate-authority=" + c.clusterCA.certFile,
		"--kubelet-preferred-address-types=InternalIP",
		"--profiling=false",
		"--v=2",
	}
	if net.ParseIP(c.bindIP).IsLoopback() {
		// A loopback advertise address is refused unless nothing writes
		// the kubernetes Service endpoints.
		args = append(args, "--endpoint-reconciler-type=none")
	}
	args = append(args, extraArgs...)
	p, err := startProcess(ctx, "kube-apiserver", c.logDir(), binary, args...)
	if err != nil {
		return nil, err
	}

	admin, err := c.clusterCA.issueClient(pki, "admin", "kubernetes-admin", []string{"system:masters"})
	if err != nil {
		return p, err
	}
	c.Host = hostURL("https", c.bindIP, port)
	c.Config = restConfig(c.Host, c.clusterCA.certPEM(), admin)
	if c.Client, err = kubernetes.NewForConfig(c.Config); err != nil {
		return p, fmt.Errorf("creating admin client: %w", err)
	}
	if c.Sims, err = simclientset.NewForConfig(c.Config); err != nil {
		return p, fmt.Errorf("creating admin sim.x-k8s.io client: %w", err)
	}
	err = waitFor(ctx, p, time.Minute, func(ctx context.Context) (bool, error) {
		result := c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx)
		var status int
		result.StatusCode(&status)
		return status == 200, nil
	})
	if err != nil {
		return p, fmt.Errorf("waiting for kube-apiserver /readyz: %w", err)
	}
	return p, nil
}
