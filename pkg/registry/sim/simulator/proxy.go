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
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/transport"
	"k8s.io/streaming/pkg/httpstream"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

// ProxyREST serves simulators/proxy: every method, forwarded to the
// simulator's inner kube-apiserver as its admin, impersonating the caller.
type ProxyREST struct {
	store      *genericregistry.Store
	access     *inner.Access
	authorizer authorizer.Authorizer
}

var _ rest.Connecter = &ProxyREST{}

var proxyMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions}

func (r *ProxyREST) New() runtime.Object { return &sim.SimulatorProxyOptions{} }
func (r *ProxyREST) Destroy()            {}

func (r *ProxyREST) ConnectMethods() []string { return proxyMethods }

func (r *ProxyREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &sim.SimulatorProxyOptions{}, true, "path"
}

// Connect resolves the simulator's ready Pod and returns the handler that
// streams the request there.
func (r *ProxyREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	proxyOpts, ok := opts.(*sim.SimulatorProxyOptions)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid options object: %T", opts))
	}
	if dotSegments(proxyOpts.Path) {
		// Such a path could climb out of the route's prefix: for a hosted
		// simulator out of the hop gate's /hop/kube (into the simulator's
		// API, which the caller may not hold) or of the hosting cluster's
		// pods/proxy. kubectl never sends one.
		return nil, apierrors.NewBadRequest(fmt.Sprintf("path %q has . or .. segments", proxyOpts.Path))
	}
	s, caller, err := connectee(ctx, r.store, name)
	if err != nil {
		return nil, err
	}
	route, err := reachable(r.access, s, s.Spec.KubeAPIServerPort)
	if err != nil {
		return nil, err
	}
	return &proxyHandler{
		simulator: s,
		caller:    caller,
		// Only the path is the caller's: scheme, host and port are the
		// Pod's (or its hosting cluster's pods/proxy's, path included).
		location:   inner.At(route.URL, proxyOpts.Path),
		transport:  route.Transport,
		responder:  responder,
		authorizer: r.authorizer,
	}, nil
}

// dotSegments says whether the path p has a "." or ".." segment.
func dotSegments(p string) bool {
	return slices.ContainsFunc(strings.Split(p, "/"), func(seg string) bool { return seg == "." || seg == ".." })
}

// connectee returns the simulator a connect request (proxy, kubeconfig) is
// about, and who asks.
func connectee(ctx context.Context, store *genericregistry.Store, name string) (*sim.Simulator, user.Info, error) {
	caller, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, nil, apierrors.NewUnauthorized("no user in the request")
	}
	// Any recent version will do: served from the records' cache, this
	// saves a host round trip on every proxied request.
	obj, err := store.Get(ctx, name, &metav1.GetOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, nil, err
	}
	return obj.(*sim.Simulator), caller, nil
}

// reachable resolves the route to a port (the inner apiserver's or the
// simulator server's) of an Available simulator's Pod, or returns the 503
// that says why it cannot be reached.
func reachable(access *inner.Access, s *sim.Simulator, port int32) (*inner.Route, error) {
	if s.Status.Phase != sim.SimulatorAvailable {
		return nil, unavailable(s)
	}
	route, err := access.Route(inner.InternalTargetOf(s, port))
	if err != nil {
		return nil, routeError(err, serviceUnavailable)
	}
	return route, nil
}

// throughPodsProxy says whether s is reached through its hosting
// cluster's pods/proxy and the hop gate, which carry neither upgrades nor
// a client certificate.
func throughPodsProxy(s *sim.Simulator) bool {
	return s.Spec.Hosting != nil && s.Spec.Hosting.Route != sim.SimulatorHostingRouteNodePort
}

// routeError is the Status of a route to a simulator that cannot be
// taken because its hosting cluster cannot be used, or answered in the
// simulator's stead: 503, reason HostingClusterUnreachable in its
// details' causes. Any other error is otherwise's.
func routeError(err error, otherwise func(error) error) error {
	var hostingErr *inner.HostingError
	var notFromSim *inner.NotFromSimulatorError
	if !errors.As(err, &hostingErr) && !errors.As(err, &notFromSim) {
		return otherwise(err)
	}
	status := apierrors.NewServiceUnavailable(err.Error())
	status.ErrStatus.Details = &metav1.StatusDetails{Group: sim.GroupName, Kind: "simulators", RetryAfterSeconds: 1,
		Causes: []metav1.StatusCause{{Type: metav1.CauseType(sim.SimulatorReasonHostingClusterUnreachable), Message: err.Error()}}}
	return status
}

func serviceUnavailable(err error) error { return apierrors.NewServiceUnavailable(err.Error()) }

// routeErrors answers a proxied request that failed on its way: with
// routeError's Status when the hosting cluster is why, as the responder
// does otherwise.
type routeErrors struct{ responder rest.Responder }

func (r routeErrors) Error(_ http.ResponseWriter, _ *http.Request, err error) {
	r.responder.Error(routeError(err, func(err error) error { return err }))
}

// unavailable is the 503 of a simulator that cannot take requests, saying why.
func unavailable(s *sim.Simulator) error {
	return retryLater(s, fmt.Sprintf("simulator %s/%s is %s: %s", s.Namespace, s.Name, s.Status.Phase, s.Status.Message))
}

// retryLater is a 503 about simulator s that asks the client to retry in a
// second.
func retryLater(s *sim.Simulator, message string) error {
	err := apierrors.NewServiceUnavailable(message)
	err.ErrStatus.Details = &metav1.StatusDetails{Group: sim.GroupName, Kind: "simulators", Name: s.Name, RetryAfterSeconds: 1}
	return err
}

type proxyHandler struct {
	simulator  *sim.Simulator
	caller     user.Info
	location   *url.URL
	transport  http.RoundTripper
	responder  rest.Responder
	authorizer authorizer.Authorizer
}

func (h *proxyHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if httpstream.IsUpgradeRequest(req) && throughPodsProxy(h.simulator) {
		// The gate takes no upgrades: the route would carry them through
		// the hosting cluster's pods/proxy as its own.
		h.responder.Error(apierrors.NewBadRequest(fmt.Sprintf("simulator %s is reached through its hosting cluster's pods/proxy: exec, attach and port-forward through its proxy are not offered (spec.hosting.route NodePort offers them)", h.simulator.Name)))
		return
	}
	if httpstream.IsUpgradeRequest(req) {
		// exec, attach and port-forward reach into the simulator's "nodes":
		// as for pods/exec in kube, a GET that upgrades needs create.
		if err := h.authorizeUpgrade(req.Context()); err != nil {
			h.responder.Error(err)
			return
		}
	}
	out := req.Clone(req.Context())
	stripIdentity(out.Header)
	// The caller's identity is set by the transport, after the reverse proxy
	// has removed the hop-by-hop headers: a request whose Connection header
	// names Impersonate-User would otherwise lose it on the way and reach the
	// inner apiserver as its admin. Upgrades are dialled directly, past the
	// transport; their request goes through the same round tripper first.
	identity := transport.ImpersonationConfig{
		UserName: h.caller.GetName(),
		UID:      h.caller.GetUID(),
		Groups:   h.caller.GetGroups(),
		Extra:    h.caller.GetExtra(),
	}
	handler := proxy.NewUpgradeAwareHandler(h.location, transport.NewImpersonatingRoundTripper(identity, h.transport), false, false, routeErrors{h.responder})
	handler.UpgradeTransport = proxy.NewUpgradeRequestRoundTripper(h.transport, transport.NewImpersonatingRoundTripper(identity, proxy.MirrorRequest))
	handler.UseLocationHost = true
	handler.ServeHTTP(w, out)
}

func (h *proxyHandler) authorizeUpgrade(ctx context.Context) error {
	decision, reason, err := h.authorizer.Authorize(ctx, proxyAttributes(h.caller, h.simulator, "create"))
	if decision == authorizer.DecisionAllow {
		return nil
	}
	msg := fmt.Sprintf("user %q cannot create simulators/proxy %q in namespace %q, which an upgraded (exec, attach, port-forward) request needs", h.caller.GetName(), h.simulator.Name, h.simulator.Namespace)
	if reason != "" {
		msg += ": " + reason
	}
	if err != nil {
		msg += ": " + err.Error()
	}
	return apierrors.NewForbidden(sim.Resource("simulators/proxy"), h.simulator.Name, fmt.Errorf("%s", msg))
}

// proxyAttributes are those of verb on the simulator's proxy by caller.
func proxyAttributes(caller user.Info, s *sim.Simulator, verb string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		User:            caller,
		Verb:            verb,
		Namespace:       s.Namespace,
		APIGroup:        sim.GroupName,
		APIVersion:      "v1alpha1",
		Resource:        "simulators",
		Subresource:     "proxy",
		Name:            s.Name,
		ResourceRequest: true,
	}
}

// Headers a caller may not pass to the inner apiserver: credentials and
// identity claims are ours to set.
var strippedHeaders = []string{"Authorization", "Cookie", "X-Remote-User", "X-Remote-Group", "X-Remote-Uid"}

var strippedPrefixes = []string{"Impersonate-", "X-Remote-Extra-"}

// stripIdentity removes whatever identity the request carried. (The
// impersonating round tripper would keep an Impersonate-User it finds.)
func stripIdentity(h http.Header) {
	for _, k := range strippedHeaders {
		h.Del(k)
	}
	for k := range h {
		for _, p := range strippedPrefixes {
			if strings.HasPrefix(http.CanonicalHeaderKey(k), p) {
				h.Del(k)
			}
		}
	}
}
