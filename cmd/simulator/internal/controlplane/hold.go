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
// the request, and the component starts again. A hold also ends when the
// simulator or the runtime's process does.
func HoldOverSocket(ctx context.Context, socket, component string) (release func(), err error) {
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		DisableKeepAlives: true,
	}}
	// The hold lasts as long as the request: until release, or ctx's end.
	holdCtx, cancel := context.WithCancel(ctx)
	// The host is not dialled: the socket is.
	req, err := http.NewRequestWithContext(holdCtx, http.MethodPost, "http://control-plane/hold/"+component, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("holding %s: %w", component, err)
	}
	line, err := bufio.NewReader(io.LimitReader(resp.Body, 4<<10)).ReadString('\n')
	if err != nil || resp.StatusCode != http.StatusOK || line != "held\n" {
		cancel()
		resp.Body.Close()
		return nil, fmt.Errorf("holding %s: %s %s", component, resp.Status, strings.TrimSpace(line))
	}
	return func() {
		cancel()
		resp.Body.Close()
	}, nil
}
