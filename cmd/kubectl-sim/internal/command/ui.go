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
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/kubectl/pkg/proxy"
)

type uiOptions struct {
	*Options
	port int
}

func newUICommand(root *Options) *cobra.Command {
	o := &uiOptions{Options: root}
	cmd := &cobra.Command{
		Use:   "ui NAME",
		Short: "Serve a simulator's web view on 127.0.0.1, as kubectl proxy does",
		Long: `Serve the web view of simulator NAME (its ui subresource) on a port of 127.0.0.1,
forwarding to the host apiserver with your credentials as kubectl proxy does, and
print its URL; Ctrl-C stops it. Only the sim.x-k8s.io API is forwarded, requests
must name 127.0.0.1 or localhost (as kubectl proxy's default --accept-hosts), and a
write from a page of another origin is refused. What the page may do is what host
RBAC grants you.`,
		Example: `  kubectl sim ui example
  kubectl sim ui example --port 8001`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args[0]) },
	}
	cmd.Flags().IntVar(&o.port, "port", 0, "Port on 127.0.0.1 to serve on (0: a free one)")
	return cmd
}

func (o *uiOptions) run(cmd *cobra.Command, name string) error {
	ctx := cmd.Context()
	c, ns, err := o.client()
	if err != nil {
		return err
	}
	// Say so now if there is no such simulator, or it is not the caller's
	// to see, rather than in the browser.
	if _, err := c.call(ctx, http.MethodGet, simulatorPath(ns, name, "", ""), nil, nil); err != nil {
		return err
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.port)))
	if err != nil {
		return err
	}
	handler, err := NewUIHandler(c.config, l.Addr().(*net.TCPAddr).Port)
	if err != nil {
		_ = l.Close()
		return err
	}
	fmt.Fprintf(o.Out, "Serving simulator %s/%s on http://%s; Ctrl-C stops.\n%s\n", ns, name, l.Addr(),
		UIURL(l.Addr().(*net.TCPAddr).Port, ns, name))
	server := &http.Server{Handler: handler, ReadHeaderTimeout: 30 * time.Second}
	done := make(chan error, 1)
	go func() { done <- server.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := server.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}
}

// UIURL is the web view of simulator ns/name behind a ui proxy on port.
func UIURL(port int, ns, name string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s/", port, simulatorPath(ns, name, "ui", ""))
}

// Paths of the host the ui proxy forwards: the sim.x-k8s.io API (the
// view and the proxy, api, nodepools and scenarios it reads), never an
// upgrade to a Pod inside a simulator (exec, attach, port-forward), as
// kubectl proxy's default --reject-paths.
var (
	uiAcceptPaths = regexp.MustCompile(`^/apis/` + regexp.QuoteMeta(group) + `/`)
	uiRejectPaths = regexp.MustCompile(`/pods/[^/]+/(exec|attach|portforward)$`)
)

// NewUIHandler forwards requests to the host of cfg with cfg's credentials
// (kubectl proxy's handler), for a listener on port of 127.0.0.1: the
// paths of the sim.x-k8s.io API, for a Host of 127.0.0.1 or localhost (a
// page of another name, rebinding DNS to 127.0.0.1, is refused), and,
// but for GET and HEAD, only without an Origin or from its own (a page of
// another origin cannot post an import, as a form could).
func NewUIHandler(cfg *rest.Config, port int) (http.Handler, error) {
	filter := &proxy.FilterServer{
		AcceptPaths:   []*regexp.Regexp{uiAcceptPaths},
		RejectPaths:   []*regexp.Regexp{uiRejectPaths},
		AcceptHosts:   proxy.MakeRegexpArrayOrDie(proxy.DefaultHostAcceptRE),
		RejectMethods: proxy.MakeRegexpArrayOrDie(proxy.DefaultMethodRejectRE),
	}
	forward, err := proxy.NewProxyHandler("/", filter, cfg, 0, false)
	if err != nil {
		return nil, err
	}
	own := map[string]bool{
		"http://127.0.0.1:" + strconv.Itoa(port): true,
		"http://localhost:" + strconv.Itoa(port): true,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if origin := req.Header.Get("Origin"); origin != "" && req.Method != http.MethodGet && req.Method != http.MethodHead && !own[origin] {
			http.Error(w, fmt.Sprintf("%s from origin %s: only the view's own pages may write", req.Method, url.QueryEscape(origin)), http.StatusForbidden)
			return
		}
		forward.ServeHTTP(w, req)
	}), nil
}
