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
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// caContent is a front proxy CA provider whose bundle a test sets.
type caContent struct {
	dynamiccertificates.CAContentProvider
	bundle []byte
}

func (c *caContent) CurrentCABundleContent() []byte { return c.bundle }

func TestAuthenticationLoaded(t *testing.T) {
	ca := &caContent{}
	auth := &genericapiserver.AuthenticationInfo{RequestHeaderConfig: &authenticatorfactory.RequestHeaderConfig{
		CAContentProvider: ca, UsernameHeaders: headerrequest.StaticStringSlice{"X-Remote-User"},
	}}
	handler := withAuthenticationLoaded(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("served"))
	}), auth)
	check := authenticationCheck(auth)
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}

	// Before the CA is loaded: 503 with Retry-After, health checks pass
	// through, readyz fails saying why.
	if rec := get("/apis/sim.x-k8s.io/v1alpha1/simulators"); rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" ||
		!strings.Contains(rec.Body.String(), "requestheader-client-ca-file") {
		t.Errorf("before the CA: %d Retry-After %q %s; want 503 with Retry-After naming the CA", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	for _, path := range []string{"/readyz", "/readyz/authentication-loaded", "/livez", "/healthz"} {
		if rec := get(path); rec.Code != http.StatusOK {
			t.Errorf("before the CA, %s: %d, want it served", path, rec.Code)
		}
	}
	if rec := get("/readyzz"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("before the CA, /readyzz: %d, want 503", rec.Code)
	}
	if err := check.Check(nil); err == nil {
		t.Error("readyz check passes before the CA is loaded")
	}

	ca.bundle = []byte("-----BEGIN CERTIFICATE-----")
	if rec := get("/apis/sim.x-k8s.io/v1alpha1/simulators"); rec.Code != http.StatusOK {
		t.Errorf("with the CA: %d, want served", rec.Code)
	}
	if err := check.Check(nil); err != nil {
		t.Errorf("readyz check with the CA: %v", err)
	}

	// Without a front proxy there is nothing to wait for.
	if err := authenticationLoaded(&genericapiserver.AuthenticationInfo{}); err != nil {
		t.Errorf("without a front proxy: %v", err)
	}
}
