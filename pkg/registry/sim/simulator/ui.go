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
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/webview"
)

// UIREST serves simulators/ui: the web view of a simulator (pkg/webview),
// GET only. The page holds no data: what it shows it asks for with URLs
// relative to itself (the simulator's proxy and api, the namespace's
// nodepools), each checked by the host's RBAC as the caller's own request,
// so a reader's page reads and cannot write.
//
// It answers for a simulator in any phase: the page says what the
// simulator's proxy answers while it is not Available.
type UIREST struct {
	store *genericregistry.Store
}

var _ rest.Connecter = &UIREST{}

// The options are the proxy's: the path under ui/ names the asset.
func (r *UIREST) New() runtime.Object { return &sim.SimulatorProxyOptions{} }
func (r *UIREST) Destroy()            {}

func (r *UIREST) ConnectMethods() []string { return []string{http.MethodGet} }

func (r *UIREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &sim.SimulatorProxyOptions{}, true, "path"
}

func (r *UIREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	o, ok := opts.(*sim.SimulatorProxyOptions)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid options object: %T", opts))
	}
	asset, ok := webview.Name(o.Path)
	if !ok {
		return nil, apierrors.NewNotFound(sim.Resource("simulators/ui"), o.Path)
	}
	// The simulator must exist (404 otherwise), whatever its phase.
	if _, _, err := connectee(ctx, r.store, name); err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// The page's URLs are relative to .../ui/: .../ui itself moves
		// the browser there.
		if strings.HasSuffix(req.URL.Path, "/ui") {
			webview.ServeMoved(w, req)
			return
		}
		webview.Serve(w, req, asset)
	}), nil
}
