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

package source

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/inlinekubeconfig"
)

// burst is the source client's burst: small, so that the source sees the
// simulator at its QPS and never a spike, beyond the first lists of every
// kind at once.
const burst = 10

// RESTConfig is the client configuration of the source whose Secret's keys
// are in dir: its kubeconfig, else its token and CA with the address of the
// cluster the simulator runs in (lookupEnv reads KUBERNETES_SERVICE_HOST
// and _PORT). It uses those credentials and no others: a kubeconfig that
// names anything outside itself (files, exec plugins, auth providers, a
// proxy) or a server not on https is refused, as the server refuses a
// hosting cluster's (inlinekubeconfig). Reads are protobuf, at qps.
func RESTConfig(dir string, qps int32, lookupEnv func(string) (string, bool)) (*rest.Config, error) {
	cfg, err := credentials(dir, lookupEnv)
	if err != nil {
		return nil, err
	}
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cfg.QPS = float32(qps)
	cfg.Burst = min(int(qps), burst)
	cfg.UserAgent = "simulator-source"
	return cfg, nil
}

func credentials(dir string, lookupEnv func(string) (string, bool)) (*rest.Config, error) {
	kubeconfigPath := filepath.Join(dir, contract.SourceKeyKubeconfig)
	data, err := os.ReadFile(kubeconfigPath)
	switch {
	case err == nil:
		cfg, err := inlinekubeconfig.RESTConfig(data)
		if err != nil {
			return nil, fmt.Errorf("the source's %s: %w", contract.SourceKeyKubeconfig, err)
		}
		return cfg, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("reading the source's %s: %w", contract.SourceKeyKubeconfig, err)
	}
	tokenPath, caPath := filepath.Join(dir, contract.SourceKeyToken), filepath.Join(dir, contract.SourceKeyCACert)
	for _, p := range []string{tokenPath, caPath} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("the source's Secret has neither %q nor %q and %q: %w",
				contract.SourceKeyKubeconfig, contract.SourceKeyToken, contract.SourceKeyCACert, err)
		}
	}
	host, _ := lookupEnv("KUBERNETES_SERVICE_HOST")
	port, _ := lookupEnv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errors.New("a token source needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT")
	}
	// The token is read from the file, again as it changes: a Secret's
	// volume follows the Secret.
	return &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		BearerTokenFile: tokenPath,
		TLSClientConfig: rest.TLSClientConfig{CAFile: caPath},
	}, nil
}
