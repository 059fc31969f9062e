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

package inner

import (
	"fmt"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// The route to a hosted simulator goes through its hosting cluster's
// pods/proxy to the simulator server's hop gate (contract.PathHop). That
// proxy authenticates the server with the hosting kubeconfig, and would
// read Impersonate-* as the server asking to act as someone there; it
// passes other headers on. So a request's identity inside travels in the
// gate's own headers, with its token.

// NotFromSimulatorError is an answer through a hosting cluster that the
// simulator server did not give (it carries no contract.HeaderHop): the
// hosting apiserver's own, e.g. 503 while the Pod is not there, or 401
// when it refuses the hosting credentials.
type NotFromSimulatorError struct {
	StatusCode int
	Status     string
}

func (e *NotFromSimulatorError) Error() string {
	return fmt.Sprintf("the hosting cluster answered %s, not the simulator", e.Status)
}

// hopRoundTripper sends requests through a hosting cluster to a
// simulator's hop gate: it drops every gate header a request came with (a
// caller's own X-Simulator-Impersonate-* would choose its identity inside),
// moves Impersonate-* into the gate's headers, adds the gate's token, and
// refuses an answer the simulator server did not mark.
type hopRoundTripper struct {
	base  http.RoundTripper
	token string
}

// HopRoundTripper wraps base, the hosting cluster's transport, for the
// simulator whose gate token is token.
func HopRoundTripper(base http.RoundTripper, token string) http.RoundTripper {
	return &hopRoundTripper{base: base, token: token}
}

func (rt *hopRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	hopRequestHeaders(out.Header, rt.token)
	res, err := rt.base.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	if res.Header.Get(contract.HeaderHop) != contract.HopMark {
		_ = res.Body.Close()
		return nil, &NotFromSimulatorError{StatusCode: res.StatusCode, Status: res.Status}
	}
	return res, nil
}

// hopRequestHeaders makes h the gate's: no gate header of the caller's,
// the identity in the gate's headers, and the token.
func hopRequestHeaders(h http.Header, token string) {
	const gatePrefix = "x-simulator-"
	impersonate := map[string]string{
		strings.ToLower(authenticationv1.ImpersonateUserHeader):  contract.HeaderHopImpersonateUser,
		strings.ToLower(authenticationv1.ImpersonateUIDHeader):   contract.HeaderHopImpersonateUID,
		strings.ToLower(authenticationv1.ImpersonateGroupHeader): contract.HeaderHopImpersonateGroup,
	}
	extraPrefix := strings.ToLower(authenticationv1.ImpersonateUserExtraHeaderPrefix)
	mapped := http.Header{}
	for k, v := range h {
		lower := strings.ToLower(k)
		switch {
		case strings.HasPrefix(lower, gatePrefix):
		case impersonate[lower] != "":
			mapped[http.CanonicalHeaderKey(impersonate[lower])] = v
		case strings.HasPrefix(lower, extraPrefix):
			// The key as sent (escaped, as client-go does it; kube-apiserver
			// reads extra keys in lower case).
			mapped[contract.HeaderHopImpersonateExtraPrefix+k[len(extraPrefix):]] = v
		default:
			continue
		}
		delete(h, k)
	}
	for k, v := range mapped {
		h[k] = v
	}
	h.Set(contract.HeaderHopToken, token)
}
