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

package simulator

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/proxy"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/streaming/pkg/httpstream"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

// APIREST serves simulators/api: the simulator's own HTTP API (its PORT:
// scheduler configuration, reset, scheduling results, export and import),
// reached through the host so that host RBAC governs it.
//
// It is a subresource of its own, not a reserved path of simulators/proxy,
// because the two APIs are different things to grant: the proxy is the
// inner kube-apiserver, whose paths (/api/v1/...) the simulator server's
// overlap, and a kubeconfig's token may use the proxy without touching the
// scheduler. Like pods/proxy and nodes/proxy, the HTTP method is the verb
// the host authorizes (the generic API server's request info): GET → get
// (configuration, results, export), PUT → update (reset, configuration),
// POST → create (import). `…/simulators/NAME/api/v1/reset` is the
// simulator server's /api/v1/reset: the subresource path is under /api.
//
// sim-apiserver authenticates to the simulator server with the simulator's
// admin client certificate, the only identity that server answers; the
// caller's own credentials never reach it.
type APIREST struct {
	store  *genericregistry.Store
	access *inner.Access
}

var _ rest.Connecter = &APIREST{}

var apiMethods = []string{http.MethodGet, http.MethodPut, http.MethodPost}

// The options are the proxy's: a path to forward.
func (r *APIREST) New() runtime.Object { return &sim.SimulatorProxyOptions{} }
func (r *APIREST) Destroy()            {}

func (r *APIREST) ConnectMethods() []string { return apiMethods }

func (r *APIREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &sim.SimulatorProxyOptions{}, true, "path"
}

// Connect resolves the simulator server of the ready Pod and returns the
// handler that streams the request there.
func (r *APIREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	o, ok := opts.(*sim.SimulatorProxyOptions)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid options object: %T", opts))
	}
	// The simulator server's API is under /api; a path that climbs out of
	// it (debug endpoints) is not forwarded.
	target := path.Clean("/api/" + strings.TrimPrefix(o.Path, "/"))
	if !strings.HasPrefix(target, "/api/") {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("path %q is not under the simulator's /api", o.Path))
	}
	s, _, err := connectee(ctx, r.store, name)
	if err != nil {
		return nil, err
	}
	route, err := reachable(r.access, s, s.Spec.SimulatorServerPort)
	if err != nil {
		return nil, err
	}
	location, transport := inner.At(route.URL, target), route.Transport
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if httpstream.IsUpgradeRequest(req) {
			responder.Error(apierrors.NewBadRequest("the simulator's API does not upgrade connections"))
			return
		}
		out := req.Clone(req.Context())
		stripIdentity(out.Header)
		handler := proxy.NewUpgradeAwareHandler(location, transport, false, false, routeErrors{responder})
		handler.UseLocationHost = true
		handler.ServeHTTP(w, out)
	}), nil
}
