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

package controlplane

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// HoldOverSocket holds component of the shared runtime stopped, through
// its hold socket (sim-control-plane --hold-socket: POST /hold/NAME, which
// answers "held" once the component has returned and holds it until the
// request ends). It returns once the component is stopped; release ends
// the request, and the component starts again. held ends with ctx, at
// release, or, its cause ErrHoldLost, when the request ends before: the
// runtime's process stopped, and the one its supervisor starts next runs
// the component again.
func HoldOverSocket(ctx context.Context, socket, component string) (held context.Context, release func(), err error) {
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		DisableKeepAlives: true,
	}}
	// The hold lasts as long as the request: until release, or ctx's end.
	holdCtx, cancel := context.WithCancelCause(ctx)
	// The host is not dialled: the socket is.
	req, err := http.NewRequestWithContext(holdCtx, http.MethodPost, "http://control-plane/hold/"+component, nil)
	if err != nil {
		cancel(err)
		return nil, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel(err)
		return nil, nil, fmt.Errorf("holding %s: %w", component, err)
	}
	body := bufio.NewReader(io.LimitReader(resp.Body, 4<<10))
	line, err := body.ReadString('\n')
	if err != nil || resp.StatusCode != http.StatusOK || line != "held\n" {
		cancel(err)
		resp.Body.Close()
		return nil, nil, fmt.Errorf("holding %s: %s %s", component, resp.Status, strings.TrimSpace(line))
	}
	// The server writes nothing more: the read ends when the request does.
	go func() {
		_, _ = io.Copy(io.Discard, body)
		cancel(fmt.Errorf("%w, and %s runs again in the next", ErrHoldLost, component))
	}()
	return holdCtx, func() {
		cancel(context.Canceled)
		resp.Body.Close()
	}, nil
}

// ErrHoldLost is the cause of a hold's end that its holder did not ask for.
var ErrHoldLost = errors.New("the control plane's process stopped")
