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

package apiserver

import (
	"errors"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
)

// errFrontProxyCANotLoaded: the generic server reads the front proxy's CA
// (requestheader-client-ca-file of kube-system/extension-apiserver-
// authentication) from an informer that syncs only after it serves;
// until then the aggregator's requests would be taken for
// system:anonymous and refused.
var errFrontProxyCANotLoaded = errors.New("the front proxy's client CA (requestheader-client-ca-file of kube-system/extension-apiserver-authentication) is not loaded yet")

// authenticationLoaded returns nil once the delegated authentication of a
// is loaded: the front proxy's CA, when there is a front proxy.
func authenticationLoaded(a *genericapiserver.AuthenticationInfo) error {
	if a.RequestHeaderConfig == nil || a.RequestHeaderConfig.CAContentProvider == nil {
		return nil
	}
	if len(a.RequestHeaderConfig.CAContentProvider.CurrentCABundleContent()) == 0 {
		return errFrontProxyCANotLoaded
	}
	return nil
}

// authenticationCheck is the readyz check of authenticationLoaded.
func authenticationCheck(a *genericapiserver.AuthenticationInfo) healthz.HealthChecker {
	return healthz.NamedCheck("authentication-loaded", func(*http.Request) error { return authenticationLoaded(a) })
}

// BuildHandlerChain is the generic server's handler chain behind a gate
// that answers 503 with Retry-After (which client-go and the aggregator's
// clients retry) until authentication is loaded, rather than a 403 for
// system:anonymous; health checks pass, so that /readyz can say why.
func BuildHandlerChain(apiHandler http.Handler, c *genericapiserver.Config) http.Handler {
	return withAuthenticationLoaded(genericapiserver.DefaultBuildHandlerChain(apiHandler, c), &c.Authentication)
}

func withAuthenticationLoaded(handler http.Handler, a *genericapiserver.AuthenticationInfo) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if err := authenticationLoaded(a); err != nil && !isHealthCheck(req.URL.Path) {
			w.Header().Set("Retry-After", "1")
			responsewriters.ErrorNegotiated(apierrors.NewServiceUnavailable(err.Error()), Codecs, schema.GroupVersion{}, w, req)
			return
		}
		handler.ServeHTTP(w, req)
	})
}

func isHealthCheck(path string) bool {
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}
