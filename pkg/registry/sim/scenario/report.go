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

package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
	"sigs.k8s.io/simulator-apiserver/pkg/scenarioreport"
)

// Formats of scenarios/report, its path: report (JSON), report/markdown,
// report/svg/PLOT.
const (
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
	FormatSVG      = "svg"
)

const (
	// sampleTimeout bounds the wait for one simulator's samples: a report
	// without a slow variant's samples beats no report.
	sampleTimeout = 5 * time.Second
	maxRunReport  = 8 << 20
)

// Caller reaches simulator servers (an *inner.Access).
type Caller interface {
	Call(ctx context.Context, t inner.Target, method, path string, body []byte, want int, maxAnswer int64) ([]byte, error)
}

// ReportREST serves scenarios/report: the comparison as JSON (status and
// each variant's samples over time), Markdown, or SVG plots. The samples are
// read from the variants' simulators, with the simulators' admin identity,
// for the simulators the scenario runs in only: those it controls, or
// names in spec.simulators.
type ReportREST struct {
	scenarios  rest.Getter
	simulators rest.Getter
	convertor  runtime.ObjectConvertor
	runners    Caller
}

// NewReportREST serves reports of the scenarios of scenarios, reading
// their simulators from simulators.
func NewReportREST(scenarios, simulators rest.Getter, convertor runtime.ObjectConvertor, runners Caller) *ReportREST {
	return &ReportREST{scenarios: scenarios, simulators: simulators, convertor: convertor, runners: runners}
}

var _ rest.Connecter = &ReportREST{}

// The options are a path: the format, and the plot of an SVG.
func (r *ReportREST) New() runtime.Object { return &sim.SimulatorProxyOptions{} }
func (r *ReportREST) Destroy()            {}

func (r *ReportREST) ConnectMethods() []string { return []string{http.MethodGet} }

func (r *ReportREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &sim.SimulatorProxyOptions{}, true, "path"
}

// Connect renders the report of scenario name.
func (r *ReportREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	o, ok := opts.(*sim.SimulatorProxyOptions)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid options object: %T", opts))
	}
	format, plot, err := parseFormat(o.Path)
	if err != nil {
		return nil, err
	}
	obj, err := r.scenarios.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	scn := &v1alpha1.Scenario{}
	if err := r.convertor.Convert(obj, scn, nil); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	report := scenarioreport.Build(scn, r.samples(ctx, scn))
	var body []byte
	var contentType string
	switch format {
	case FormatJSON:
		contentType = "application/json"
		if body, err = json.Marshal(report); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	case FormatMarkdown:
		contentType, body = "text/markdown; charset=utf-8", report.Markdown()
	case FormatSVG:
		contentType = "image/svg+xml"
		if body, err = report.SVG(plot); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		// An SVG opened on its own runs no script of ours or anyone's.
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		_, _ = w.Write(body)
	}), nil
}

func parseFormat(path string) (format, plot string, err error) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case parts[0] == "" || parts[0] == FormatJSON && len(parts) == 1:
		return FormatJSON, "", nil
	case parts[0] == FormatMarkdown && len(parts) == 1:
		return FormatMarkdown, "", nil
	case parts[0] == FormatSVG && len(parts) == 2:
		return FormatSVG, parts[1], nil
	case parts[0] == FormatSVG:
		return "", "", apierrors.NewBadRequest(fmt.Sprintf("report/svg/PLOT: the plots are %s", strings.Join(scenarioreport.Plots(), ", ")))
	}
	return "", "", apierrors.NewBadRequest(fmt.Sprintf("report path %q: want report, report/json, report/markdown or report/svg/{%s}", path, strings.Join(scenarioreport.Plots(), ",")))
}

// samples reads each variant's samples from its simulator, concurrently;
// a simulator that does not answer has none.
func (r *ReportREST) samples(ctx context.Context, scn *v1alpha1.Scenario) map[string][]contract.ScenarioSample {
	var mu sync.Mutex
	out := map[string][]contract.ScenarioSample{}
	var wg sync.WaitGroup
	for _, v := range scn.Status.Variants {
		t, ok := r.target(ctx, scn, v.SimulatorName)
		if !ok {
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, sampleTimeout)
			defer cancel()
			body, err := r.runners.Call(ctx, t, http.MethodGet, contract.PathScenario, nil, http.StatusOK, maxRunReport)
			if err != nil {
				return
			}
			rep := &contract.ScenarioReport{}
			if json.Unmarshal(body, rep) != nil || rep.RunID != string(scn.UID) {
				return
			}
			mu.Lock()
			out[v.Name] = rep.Samples
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// target is the simulator server of a simulator the scenario runs in.
func (r *ReportREST) target(ctx context.Context, scn *v1alpha1.Scenario, name string) (inner.Target, bool) {
	obj, err := r.simulators.Get(ctx, name, &metav1.GetOptions{ResourceVersion: "0"})
	if err != nil {
		return inner.Target{}, false
	}
	s, ok := obj.(*sim.Simulator)
	if !ok || s.Status.Phase != sim.SimulatorAvailable {
		return inner.Target{}, false
	}
	if !metav1.IsControlledBy(s, scn) && !slices.Contains(scn.Spec.Simulators, name) {
		return inner.Target{}, false
	}
	return inner.InternalTargetOf(s, s.Spec.SimulatorServerPort), true
}
