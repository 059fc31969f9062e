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

package command

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// TestErrors: what reaches the user is what kubectl would print: the
// host's Status, and the simulator server's own errors (which simulators/api
// forwards) with their code's reason.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"the host's Status", responseError(403, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,`+
			`"message":"simulators.sim.x-k8s.io \"example\" is forbidden: User \"bob\" cannot get resource \"simulators/api\""}`)),
			`Error from server (Forbidden): simulators.sim.x-k8s.io "example" is forbidden: User "bob" cannot get resource "simulators/api"` + "\n"},
		{"the simulator's error", responseError(404, []byte(`{"error":"no scheduling result for pod default/nope"}`)),
			"Error from server (NotFound): no scheduling result for pod default/nope\n"},
		{"a conflict", responseError(409, []byte(`{"error":"an import is running"}`)),
			"Error from server (Conflict): an import is running\n"},
		{"plain text", responseError(502, []byte("bad gateway\n")),
			"Error from server (InternalError): bad gateway\n"},
		{"no body", responseError(500, nil),
			"Error from server (InternalError): Internal Server Error\n"},
		{"unauthorized", responseError(401, []byte(`{"kind":"Status","status":"Failure","reason":"Unauthorized","code":401,"message":"Unauthorized"}`)),
			"error: You must be logged in to the server (Unauthorized)\n"},
		{"no server", &url.Error{Op: "Get", URL: "https://x", Err: errors.New("connection refused")},
			"Unable to connect to the server: connection refused\n"},
		{"the plugin's own", errors.New("import needs either -f FILE or --resume"),
			"error: import needs either -f FILE or --resume\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			PrintError(&b, tc.err)
			if b.String() != tc.want {
				t.Errorf("PrintError:\n%q\nwant\n%q", b.String(), tc.want)
			}
		})
	}
}
