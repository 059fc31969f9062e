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
	"crypto/subtle"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	x509request "k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/klog/v2"
)

// publicPaths answer without credentials, as kube-apiserver's do for
// system:public-info-viewer: the kubelet's readiness probe has no client
// certificate.
var publicPaths = []string{contract.PathHealthz, contract.PathReadyz}

// ClientCertAuthenticator authenticates client certificates signed by the
// simulator CA, as the inner kube-apiserver does (--client-ca-file): kube's
// x509 request authenticator, user from the Common Name, groups from the
// Organizations.
func ClientCertAuthenticator(ca *x509.CertPool) authenticator.Request {
	opts := x509request.DefaultVerifyOptions()
	opts.Roots = ca
	return x509request.New(opts, x509request.CommonNameUserConversion)
}

// HopUser is the identity of a request with the hop gate's token
// (contract.HeaderHopToken): sim-apiserver's, through the hosting cluster's
// pods/proxy, which carries no client certificate.
const HopUser = "sim-hop"

// hopIdentity is HopUser as HopTokenAuthenticator makes it. allowed tells
// it by its type, not its name: a client certificate of the simulator CA
// (a ?mode=direct kubeconfig's) may carry any name.
type hopIdentity struct{ user.DefaultInfo }

// hopPaths are what HopUser may use: the simulator's API, and the inner
// kube-apiserver through the gate.
var hopPaths = []string{"/api/", contract.PathHop}

// HopTokenAuthenticator authenticates a request whose
// contract.HeaderHopToken is token (contract.FileHopToken's content) as
// HopUser; a request with another token is refused, one without is left to
// the next authenticator. An empty token refuses every request that has
// the header: a simulator that is not hosted has no gate.
func HopTokenAuthenticator(token []byte) authenticator.Request {
	return authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
		got, ok := r.Header[http.CanonicalHeaderKey(contract.HeaderHopToken)]
		if !ok {
			return nil, false, nil
		}
		if len(token) == 0 {
			return nil, false, errors.New("this simulator has no hop token")
		}
		// Constant time: how long a wrong token takes tells nothing of the
		// right one.
		if len(got) != 1 || subtle.ConstantTimeCompare([]byte(got[0]), token) != 1 {
			return nil, false, errors.New("wrong hop token")
		}
		return &authenticator.Response{User: &hopIdentity{user.DefaultInfo{Name: HopUser}}}, true, nil
	})
}

// allowed says whether u may use urlPath: the admin everything, HopUser
// hopPaths.
func allowed(u user.Info, urlPath string) bool {
	if _, hop := u.(*hopIdentity); hop {
		// Cleaned, so that no /api/../ leads elsewhere.
		clean := path.Clean(urlPath)
		return slices.ContainsFunc(hopPaths, func(prefix string) bool { return strings.HasPrefix(clean, prefix) })
	}
	return u.GetName() == contract.AdminUser && slices.Contains(u.GetGroups(), contract.AdminGroup)
}

// AdminOnly serves next to the simulator's admin alone (contract.AdminUser in
// contract.AdminGroup, the certificate sim-apiserver holds): a request without
// a valid client certificate gets 401, any other identity 403. Users reach
// this API through the host's simulators/api subresource, where host RBAC
// checks their verbs; a user's own certificate of the simulator CA (a
// ?mode=direct kubeconfig's) would bypass that, so it is refused here.
// HopUser, the admin through a hosting cluster, has the API and the gate.
// Health and readiness stay public.
func AdminOnly(next http.Handler, authn authenticator.Request) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// CORS preflights carry no credentials and change nothing: the
		// handler answers them from the allowed origins alone. Not on the
		// gate, which would carry them to kube-apiserver as the admin.
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" &&
			!strings.HasPrefix(path.Clean(r.URL.Path)+"/", contract.PathHop)
		if preflight || slices.Contains(publicPaths, r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		resp, ok, err := authn.AuthenticateRequest(r)
		if !ok {
			if err == nil {
				err = errors.New("no client certificate")
			}
			klog.FromContext(r.Context()).V(2).Info("Refused an unauthenticated request", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr, "err", err)
			writeError(w, http.StatusUnauthorized, fmt.Errorf("unauthorized: a client certificate of the simulator's admin or the hop token is required: %w", err))
			return
		}
		u := resp.User
		if !allowed(u, r.URL.Path) {
			klog.FromContext(r.Context()).V(2).Info("Refused a request", "method", r.Method, "path", r.URL.Path, "user", u.GetName())
			writeError(w, http.StatusForbidden, fmt.Errorf("forbidden: user %q may not use the simulator server; use the host's simulators/api subresource", u.GetName()))
			return
		}
		next.ServeHTTP(w, r)
	})
}
