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

package inlinekubeconfig

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// inlineKubeconfig is a kubeconfig with everything inline: a token and a
// CA, for server, at its current context "b".
func inlineKubeconfig(server string, ca []byte) *clientcmdapi.Config {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["b"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	kc.AuthInfos["sims"] = &clientcmdapi.AuthInfo{Token: "hosting-token"}
	kc.Contexts["b"] = &clientcmdapi.Context{Cluster: "b", AuthInfo: "sims"}
	kc.CurrentContext = "b"
	return kc
}

func write(t *testing.T, kc *clientcmdapi.Config) []byte {
	t.Helper()
	data, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRESTConfigRefuses: a kubeconfig that would make the server read its
// own files, run a plugin, go through a proxy or send the credentials in
// clear is refused, with an error naming the entry and what to do; in any
// user or cluster of the file, not only the current context's.
func TestRESTConfigRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*clientcmdapi.Config)
		want   string
	}{
		{"exec plugin", func(kc *clientcmdapi.Config) {
			kc.AuthInfos["sims"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "aws", APIVersion: "client.authentication.k8s.io/v1"}}
		}, `user "sims" runs an exec credential plugin`},
		{"auth provider", func(kc *clientcmdapi.Config) {
			kc.AuthInfos["sims"] = &clientcmdapi.AuthInfo{AuthProvider: &clientcmdapi.AuthProviderConfig{Name: "oidc"}}
		}, `user "sims" uses the auth provider "oidc"`},
		{"token file", func(kc *clientcmdapi.Config) {
			kc.AuthInfos["sims"].TokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
		},
			`user "sims" names a token file`},
		{"client certificate file", func(kc *clientcmdapi.Config) {
			kc.AuthInfos["sims"] = &clientcmdapi.AuthInfo{ClientCertificate: "/etc/sim/tls.crt", ClientKeyData: []byte("key")}
		}, `user "sims" names a client-certificate file`},
		{"client key file", func(kc *clientcmdapi.Config) {
			kc.AuthInfos["sims"] = &clientcmdapi.AuthInfo{ClientCertificateData: []byte("cert"), ClientKey: "/etc/sim/tls.key"}
		}, `user "sims" names a client-key file`},
		{"certificate authority file", func(kc *clientcmdapi.Config) {
			kc.Clusters["b"].CertificateAuthorityData, kc.Clusters["b"].CertificateAuthority = nil, "/etc/sim/ca.crt"
		}, `cluster "b" names a certificate-authority file`},
		{"proxy", func(kc *clientcmdapi.Config) { kc.Clusters["b"].ProxyURL = "http://proxy.example:3128" },
			`cluster "b" has a proxy-url`},
		{"http server", func(kc *clientcmdapi.Config) { kc.Clusters["b"].Server = "http://b.example:6443" },
			`cluster "b" has server "http://b.example:6443": it must be an https:// URL`},
		{"no server", func(kc *clientcmdapi.Config) { kc.Clusters["b"].Server = "" },
			`cluster "b" has server "": it must be an https:// URL`},
		{"a file in a user of another context", func(kc *clientcmdapi.Config) {
			kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{TokenFile: "/root/token"}
		}, `user "admin" names a token file`},
		{"a plugin in a user of another context", func(kc *clientcmdapi.Config) {
			kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "gcloud", APIVersion: "client.authentication.k8s.io/v1"}}
		}, `user "admin" runs an exec credential plugin`},
		{"no current context", func(kc *clientcmdapi.Config) { kc.CurrentContext = "" }, "has no current-context"},
		{"current context unknown", func(kc *clientcmdapi.Config) { kc.CurrentContext = "a" },
			`current-context "a" names no cluster of the file`},
		{"current context without its cluster", func(kc *clientcmdapi.Config) { kc.Contexts["b"].Cluster = "c" },
			`current-context "b" names no cluster of the file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := inlineKubeconfig("https://b.example:6443", []byte("ca"))
			tc.mutate(kc)
			cfg, err := RESTConfig(write(t, kc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %+v, %v; want an error with %q", cfg, err, tc.want)
			}
		})
	}
	if _, err := RESTConfig([]byte("{not yaml")); err == nil {
		t.Error("unparsable: no error")
	}
	if _, err := RESTConfig(nil); err == nil || !strings.Contains(err.Error(), "no current-context") {
		t.Errorf("empty: %v, want no current-context", err)
	}
}

// TestRESTConfigInline: a kubeconfig with everything inline gives a
// client that reaches its server with its CA and token, and nothing of
// the server's own environment.
func TestRESTConfigInline(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer hosting-token" {
			http.Error(w, "who?", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37"}`))
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	t.Setenv("KUBECONFIG", "/nonexistent")

	cfg, err := RESTConfig(write(t, inlineKubeconfig(srv.URL, ca)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != srv.URL || cfg.BearerToken != "hosting-token" || cfg.BearerTokenFile != "" || cfg.CAFile != "" || cfg.CertFile != "" ||
		cfg.KeyFile != "" || cfg.ExecProvider != nil || cfg.AuthProvider != nil || cfg.Proxy != nil {
		t.Errorf("config %+v, want the kubeconfig's server and token inline, no files, plugins or proxy", cfg)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(srv.URL + "/version")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /version: %s, want 200 with the kubeconfig's CA and token", resp.Status)
	}
}
