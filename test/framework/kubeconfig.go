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

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// clusterName is the cluster and context name in the kubeconfigs the
// framework writes.
const clusterName = "sim-host"

// restConfig returns a client config for the host kube-apiserver
// authenticating with the given client certificate.
func restConfig(host string, caPEM []byte, client *keyPair) *rest.Config {
	return &rest.Config{
		Host: host,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   caPEM,
			CertData: client.certPEM,
			KeyData:  client.keyPEM,
		},
		QPS:   100,
		Burst: 200,
	}
}

// writeKubeconfig writes a self-contained kubeconfig (certificates inlined)
// for cfg to path.
func writeKubeconfig(path string, cfg *rest.Config) error {
	user := "user"
	kubeconfig := clientcmdapi.Config{
		Clusters: map[string]*clientcmdapi.Cluster{clusterName: {
			Server:                   cfg.Host,
			CertificateAuthorityData: cfg.CAData,
		}},
		AuthInfos: map[string]*clientcmdapi.AuthInfo{user: {
			ClientCertificateData: cfg.CertData,
			ClientKeyData:         cfg.KeyData,
		}},
		Contexts: map[string]*clientcmdapi.Context{clusterName: {
			Cluster:  clusterName,
			AuthInfo: user,
		}},
		CurrentContext: clusterName,
	}
	if err := clientcmd.WriteToFile(kubeconfig, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}
