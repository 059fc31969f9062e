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

package hosting

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// The kinds of Health errors, for errors.Is.
var (
	// ErrUnreachable: the last request failed before an answer (dial, TLS).
	ErrUnreachable = errors.New("the hosting cluster is unreachable")
	// ErrRefused: the hosting cluster answered 401 or 403.
	ErrRefused = errors.New("the hosting cluster refused the kubeconfig's credentials")
)

// Health is how requests to one hosting cluster last went, as its
// clients' transport sees them: the objects the server keeps there are
// not to be trusted, nor deleted, while it cannot reach the cluster or
// the cluster refuses it, and the simulators' status says so.
type Health struct {
	onChange func()

	mu  sync.Mutex
	err error
}

// NewHealth returns a Health that calls onChange (if not nil) after Err
// changes. onChange runs on the request's goroutine, outside any lock: it
// should be quick (enqueue) and read Err itself.
func NewHealth(onChange func()) *Health {
	return &Health{onChange: onChange}
}

// Err is the last failure: a transport error (ErrUnreachable) or a 401 or
// 403 answer (ErrRefused); nil when no request failed so since the last
// answer that did not.
func (h *Health) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// Wrap is a rest.Config's WrapTransport: it records the outcome of every
// request through rt.
func (h *Health) Wrap(rt http.RoundTripper) http.RoundTripper {
	return &healthRoundTripper{health: h, next: rt}
}

// set records err (nil: a success) and tells onChange when its text
// changed: a repeat of one failure, or a success after a success, is none.
func (h *Health) set(err error) {
	h.mu.Lock()
	changed := (err == nil) != (h.err == nil) || (err != nil && err.Error() != h.err.Error())
	h.err = err
	h.mu.Unlock()
	if changed && h.onChange != nil {
		h.onChange()
	}
}

type healthRoundTripper struct {
	health *Health
	next   http.RoundTripper
}

func (rt *healthRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	switch {
	case err != nil:
		// The caller gave up (a watch stopped, a request's deadline):
		// nothing learnt of the cluster.
		if req.Context().Err() == nil {
			rt.health.set(fmt.Errorf("%w: %s: %w", ErrUnreachable, req.URL.Host, err))
		}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden && req.Method == http.MethodGet:
		// Neither method nor path: the error is the cluster's, and a
		// message that changed with every request would be a change.
		rt.health.set(fmt.Errorf("%w: %s answered %s", ErrRefused, req.URL.Host, resp.Status))
	case resp.StatusCode == http.StatusForbidden:
		// A write refused: by authorization, or by admission (a quota,
		// PodSecurity, a policy) about that object, which the write's own
		// error reports. Nothing learnt of the credentials: the reads
		// (the cache's lists and watches) tell whether they lost rights.
	case resp.StatusCode < http.StatusInternalServerError:
		// Reached, and the credentials accepted. A 5xx tells neither:
		// the last state stands.
		rt.health.set(nil)
	}
	return resp, err
}

// WrappedRoundTripper lets client-go see through the wrapper (for
// connection reuse and request cancellation).
func (rt *healthRoundTripper) WrappedRoundTripper() http.RoundTripper { return rt.next }
