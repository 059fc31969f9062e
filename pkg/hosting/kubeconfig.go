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

// Package hosting reaches the clusters that host simulators (spec.hosting)
// with the kubeconfig a user put in a Secret, and tells how each is doing.
package hosting

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// RESTConfig is the client configuration of a hosting cluster's kubeconfig
// (the "kubeconfig" key of the spec.hosting.secretName Secret), at its
// current context. The server acts with it in the user's name, so it must
// carry everything inline: a file it names would be read on the server's
// machine (its own token, key or CA), a plugin would run there, and a proxy
// would send the credentials elsewhere. Every user and cluster of the file
// is checked, not only the current one, so that no entry could name one.
func RESTConfig(kubeconfig []byte) (*rest.Config, error) {
	kc, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("the hosting kubeconfig: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(kc.AuthInfos)) {
		if err := checkUser(kc.AuthInfos[name]); err != nil {
			return nil, fmt.Errorf("the hosting kubeconfig: user %q %w", name, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(kc.Clusters)) {
		if err := checkCluster(kc.Clusters[name]); err != nil {
			return nil, fmt.Errorf("the hosting kubeconfig: cluster %q %w", name, err)
		}
	}
	// clientcmd's own error for these speaks of the environment, which is
	// not consulted here.
	if kc.CurrentContext == "" {
		return nil, errors.New("the hosting kubeconfig has no current-context")
	}
	if c, ok := kc.Contexts[kc.CurrentContext]; !ok || kc.Clusters[c.Cluster] == nil {
		return nil, fmt.Errorf("the hosting kubeconfig: current-context %q names no cluster of the file", kc.CurrentContext)
	}
	// NewDefaultClientConfig, not loading rules: those would fill what the
	// file lacks from the server's own environment ($KUBECONFIG, in-cluster).
	cfg, err := clientcmd.NewDefaultClientConfig(*kc, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("the hosting kubeconfig: %w", err)
	}
	return cfg, nil
}

func checkUser(a *clientcmdapi.AuthInfo) error {
	switch {
	case a.Exec != nil:
		return errors.New("runs an exec credential plugin, which would run on the server: give its credentials inline")
	case a.AuthProvider != nil:
		return fmt.Errorf("uses the auth provider %q, which would run on the server: give its credentials inline", a.AuthProvider.Name)
	case a.TokenFile != "":
		return errors.New("names a token file (tokenFile), which would be read on the server: give token instead")
	case a.ClientCertificate != "":
		return errors.New("names a client-certificate file, which would be read on the server: give client-certificate-data instead")
	case a.ClientKey != "":
		return errors.New("names a client-key file, which would be read on the server: give client-key-data instead")
	}
	return nil
}

func checkCluster(c *clientcmdapi.Cluster) error {
	switch {
	case c.CertificateAuthority != "":
		return errors.New("names a certificate-authority file, which would be read on the server: give certificate-authority-data instead")
	case c.ProxyURL != "":
		return errors.New("has a proxy-url: the hosting cluster is reached directly")
	}
	u, err := url.Parse(c.Server)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("has server %q: it must be an https:// URL, as the credentials go there", c.Server)
	}
	return nil
}
