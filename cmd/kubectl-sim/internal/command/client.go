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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// The API group and version of simulators.
const (
	group   = "sim.x-k8s.io"
	version = "v1alpha1"
)

// simulatorPath is the host's path of simulator ns/name, or of its
// subresource (kubeconfig, proxy, api, ui) followed by rest.
func simulatorPath(ns, name, subresource, rest string) string {
	p := fmt.Sprintf("/apis/%s/%s/namespaces/%s/simulators/%s", group, version, url.PathEscape(ns), url.PathEscape(name))
	if subresource != "" {
		p += "/" + subresource + rest
	}
	return p
}

// client makes requests to the host apiserver as the caller.
type client struct {
	http *http.Client
	base *url.URL
	// config is the caller's, for the commands that hand it on (ui).
	config *rest.Config
}

// client returns a client of the host and the namespace the caller chose
// (-n, or the context's).
func (o *Options) client() (*client, string, error) {
	cfg, err := o.config.ClientConfig()
	if err != nil {
		return nil, "", err
	}
	ns, _, err := o.config.Namespace()
	if err != nil {
		return nil, "", err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, "", err
	}
	base, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, "", err
	}
	return &client{http: hc, base: base, config: cfg}, ns, nil
}

// do makes a request and returns the response of a 2xx answer; any other
// answer is an error as kubectl shows it: the host's Status, or the
// simulator server's {"error": ...} with the answer's code.
func (c *client) do(ctx context.Context, method, path string, query url.Values, body io.Reader) (*http.Response, error) {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, */*")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close() //nolint:errcheck // read to its end or its limit
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return nil, responseError(resp.StatusCode, data)
}

// call makes a request and returns the whole body of a 2xx answer.
func (c *client) call(ctx context.Context, method, path string, query url.Values, body io.Reader) ([]byte, error) {
	resp, err := c.do(ctx, method, path, query, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close() //nolint:errcheck // read to its end
	return io.ReadAll(resp.Body)
}

// responseError is the error of a non-2xx answer: a *StatusError, so that
// it prints as kubectl prints the server's errors.
func responseError(code int, body []byte) error {
	var status metav1.Status
	if json.Unmarshal(body, &status) == nil && status.Kind == "Status" {
		if status.Code == 0 {
			status.Code = int32(code)
		}
		return &apierrors.StatusError{ErrStatus: status}
	}
	message := strings.TrimSpace(string(body))
	// The simulator server's errors, forwarded by simulators/api.
	var simErr struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &simErr) == nil && simErr.Error != "" {
		message = simErr.Error
	}
	if message == "" {
		message = http.StatusText(code)
	}
	// The reason kubectl would show for the code.
	reason := apierrors.NewGenericServerResponse(code, "", schema.GroupResource{}, "", "", 0, false).ErrStatus.Reason
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: message,
	}}
}

// PrintError writes err as kubectl writes its errors.
func PrintError(w io.Writer, err error) {
	var status apierrors.APIStatus
	var urlErr *url.Error
	switch {
	case errors.As(err, &status):
		switch s := status.Status(); {
		case s.Reason == metav1.StatusReasonUnauthorized:
			fmt.Fprintf(w, "error: You must be logged in to the server (%s)\n", s.Message)
		case s.Reason != "":
			fmt.Fprintf(w, "Error from server (%s): %s\n", s.Reason, err.Error())
		default:
			fmt.Fprintf(w, "Error from server: %s\n", err.Error())
		}
	case errors.As(err, &urlErr):
		fmt.Fprintf(w, "Unable to connect to the server: %v\n", urlErr.Err)
	default:
		fmt.Fprintf(w, "error: %v\n", err)
	}
}
