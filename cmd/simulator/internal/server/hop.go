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

package server

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// hopPrefix is contract.PathHop without its last slash: what the gate takes
// off a path to make the inner kube-apiserver's.
var hopPrefix = strings.TrimSuffix(contract.PathHop, "/")

// HopProxy is the hop gate (contract.PathHop): it sends a request, its path
// without the prefix, to the inner kube-apiserver at target through
// transport, which holds the admin's client certificate. The caller's own
// Impersonate-* headers are dropped, as a hosting apiserver's proxy would
// have read them as its own; its X-Simulator-Impersonate-* become them.
// Watches stream and upgrades (exec, port-forward) pass through.
func HopProxy(target *url.URL, transport http.RoundTripper) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = target.Scheme
			pr.Out.URL.Host = target.Host
			pr.Out.URL.Path = strings.TrimPrefix(pr.In.URL.Path, hopPrefix)
			pr.Out.URL.RawPath = strings.TrimPrefix(pr.In.URL.RawPath, hopPrefix)
			pr.Out.Host = ""
			hopHeaders(pr.Out.Header)
		},
		Transport: transport,
		// Every write of a watch reaches the caller at once.
		FlushInterval: -1,
		ModifyResponse: func(res *http.Response) error {
			// The mark is the simulator server's alone (Marked).
			res.Header.Del(contract.HeaderHop)
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			klog.FromContext(r.Context()).V(2).Info("Hop to kube-apiserver failed", "method", r.Method, "path", r.URL.Path, "err", err)
			writeError(w, http.StatusBadGateway, fmt.Errorf("reaching the simulator's kube-apiserver: %w", err))
		},
	}
}

// hopHeaders makes a request's headers the inner kube-apiserver's: the
// admin's certificate is its one credential, and the identity it acts as
// is the one of X-Simulator-Impersonate-*.
func hopHeaders(h http.Header) {
	mapped := http.Header{}
	for k, v := range h {
		lower := strings.ToLower(k)
		switch {
		case lower == strings.ToLower(contract.HeaderHopImpersonateUser):
			mapped[authenticationv1.ImpersonateUserHeader] = v
		case lower == strings.ToLower(contract.HeaderHopImpersonateUID):
			mapped[authenticationv1.ImpersonateUIDHeader] = v
		case lower == strings.ToLower(contract.HeaderHopImpersonateGroup):
			mapped[authenticationv1.ImpersonateGroupHeader] = v
		case strings.HasPrefix(lower, strings.ToLower(contract.HeaderHopImpersonateExtraPrefix)):
			key := k[len(contract.HeaderHopImpersonateExtraPrefix):]
			mapped[authenticationv1.ImpersonateUserExtraHeaderPrefix+key] = v
		case !strings.HasPrefix(lower, "impersonate-") && !strings.HasPrefix(lower, "x-simulator-") && lower != "authorization":
			continue
		}
		// The token, the caller's own impersonation and any other of the
		// gate's headers go no further.
		delete(h, k)
	}
	for k, v := range mapped {
		h[k] = v
	}
}

// HopTransport is the gate's transport to the inner kube-apiserver of cfg
// (controlplane.AdminRESTConfig): its TLS, over HTTP/1.1 alone, since Go
// upgrades a request only on HTTP/1.1 and client-go's transport would
// negotiate HTTP/2 for every kind of upgrade but WebSocket.
func HopTransport(cfg *rest.Config) (http.RoundTripper, error) {
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("the hop gate's TLS configuration: %w", err)
	}
	return &http.Transport{
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
	}, nil
}

// Marked marks every answer of next with contract.HeaderHop, so that a
// caller through a hosting cluster tells the simulator's answers (a 401 of
// the gate included) from its hosting apiserver's.
func Marked(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(contract.HeaderHop, contract.HopMark)
		next.ServeHTTP(w, r)
	})
}
