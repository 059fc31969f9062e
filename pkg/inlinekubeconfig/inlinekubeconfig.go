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

// Package inlinekubeconfig reads a kubeconfig that a user put in a Secret
// for something else to act with in their name: the server with a hosting
// cluster's (spec.hosting) and a simulator with its source's
// (spec.source). It must carry everything inline: a file it names would be
// read on the machine that acts (its own token, key or CA), a plugin would
// run there, and a proxy would send the credentials elsewhere.
package inlinekubeconfig

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

// RESTConfig is the client configuration of kubeconfig at its current
// context, if it carries everything inline and reaches its server over
// https. Every user and cluster of the file is checked, not only the
// current one, so that no entry could name a file. The errors say what to
// change; callers say whose kubeconfig it is.
func RESTConfig(kubeconfig []byte) (*rest.Config, error) {
	kc, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(kc.AuthInfos)) {
		if err := checkUser(kc.AuthInfos[name]); err != nil {
			return nil, fmt.Errorf("user %q %w", name, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(kc.Clusters)) {
		if err := checkCluster(kc.Clusters[name]); err != nil {
			return nil, fmt.Errorf("cluster %q %w", name, err)
		}
	}
	// clientcmd's own error for these speaks of the environment, which is
	// not consulted here.
	if kc.CurrentContext == "" {
		return nil, errors.New("it has no current-context")
	}
	if c, ok := kc.Contexts[kc.CurrentContext]; !ok || kc.Clusters[c.Cluster] == nil {
		return nil, fmt.Errorf("current-context %q names no cluster of the file", kc.CurrentContext)
	}
	// NewDefaultClientConfig, not loading rules: those would fill what the
	// file lacks from the environment of the process ($KUBECONFIG, its own
	// service account).
	return clientcmd.NewDefaultClientConfig(*kc, &clientcmd.ConfigOverrides{}).ClientConfig()
}

func checkUser(a *clientcmdapi.AuthInfo) error {
	switch {
	case a.Exec != nil:
		return errors.New("runs an exec credential plugin, which would run where it is used: give its credentials inline")
	case a.AuthProvider != nil:
		return fmt.Errorf("uses the auth provider %q, which would run where it is used: give its credentials inline", a.AuthProvider.Name)
	case a.TokenFile != "":
		return errors.New("names a token file (tokenFile), which would be read where it is used: give token instead")
	case a.ClientCertificate != "":
		return errors.New("names a client-certificate file, which would be read where it is used: give client-certificate-data instead")
	case a.ClientKey != "":
		return errors.New("names a client-key file, which would be read where it is used: give client-key-data instead")
	}
	return nil
}

func checkCluster(c *clientcmdapi.Cluster) error {
	switch {
	case c.CertificateAuthority != "":
		return errors.New("names a certificate-authority file, which would be read where it is used: give certificate-authority-data instead")
	case c.ProxyURL != "":
		return errors.New("has a proxy-url: the cluster is reached directly")
	}
	u, err := url.Parse(c.Server)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("has server %q: it must be an https:// URL, as the credentials go there", c.Server)
	}
	return nil
}
