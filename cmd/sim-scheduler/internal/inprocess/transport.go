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

// Package inprocess serves the kube-apiserver of this process to the
// clients running beside it in the same process without a network: a
// request sent to the in-process server's URL is handed to kube-apiserver's
// handler chain (authentication, priority and fairness, admission, all of
// it), its response read from memory. It saves the TLS, the HTTP/2 framing
// and the syscalls on both ends of every request and watch event between
// them.
package inprocess

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
)

// Sizes of a response body's buffers: what the handler writes before it
// flushes, and what it may get ahead of its reader by.
const (
	writeBuffer = 32 << 10
	pipeLimit   = 1 << 20
)

// remoteAddr is the client address the handler sees (audit's source IP).
const remoteAddr = "127.0.0.1:0"

// Transport sends the requests for one in-process server to the handler
// it is given, and any other request to the transport it wraps.
type Transport struct {
	host string
	// token is the bearer token of every in-process request; userName
	// and groups are whom it stands for in TokenFile.
	token    string
	userName string
	groups   []string
	fallback http.RoundTripper
	handler  atomic.Pointer[http.Handler]
}

// New returns a transport serving server (http://HOST) in-process once
// Serve is called: each request to it carries a bearer token of its own
// (TokenFile tells kube-apiserver whose), for the user and groups of the
// client certificate in certFile (its common name and organizations, as
// kube-apiserver reads a client certificate). A token, because
// kube-apiserver would verify a certificate's chain on every request. The
// server URL is plain HTTP so that client-go, given a kubeconfig naming it,
// uses http.DefaultTransport (see Install). Other requests go to fallback.
func New(server, certFile string, fallback http.RoundTripper) (*Transport, error) {
	u, err := url.Parse(server)
	if err != nil {
		return nil, fmt.Errorf("in-process server %q: %w", server, err)
	}
	if u.Scheme != "http" || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("in-process server %q: want http://HOST", server)
	}
	certs, err := certutil.CertsFromFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("in-process client certificate: %w", err)
	}
	if certs[0].Subject.CommonName == "" {
		return nil, fmt.Errorf("in-process client certificate %s: no common name", certFile)
	}
	return &Transport{
		host:     u.Host,
		token:    rand.Text(),
		userName: certs[0].Subject.CommonName,
		groups:   certs[0].Subject.Organization,
		fallback: fallback,
	}, nil
}

// TokenFile writes kube-apiserver's --token-auth-file for the transport's
// requests into dir, readable by its owner only, and returns its path.
func (t *Transport) TokenFile(dir string) (string, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	// token, user, uid, groups: x509 users have no UID.
	_ = w.Write([]string{t.token, t.userName, "", strings.Join(t.groups, ",")})
	w.Flush()
	if err := w.Error(); err != nil {
		return "", fmt.Errorf("writing the in-process token file: %w", err)
	}
	path := filepath.Join(dir, "in-process-token.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return "", fmt.Errorf("writing the in-process token file: %w", err)
	}
	return path, nil
}

// Install makes t http.DefaultTransport: the transport client-go takes for
// a server without TLS, a kubeconfig naming the in-process server among
// them. It must run before the process's clients are made.
func (t *Transport) Install() {
	http.DefaultTransport = t
}

// Serve serves the in-process server's requests with h from now on, until
// Stop. Requests sent before are refused, as by a server not yet listening.
func (t *Transport) Serve(h http.Handler) { t.handler.Store(&h) }

// Stop refuses requests from now on; those in flight go on.
func (t *Transport) Stop() { t.handler.Store(nil) }

// errRefused is what a client of a server not serving gets: client-go and
// utilnet.IsConnectionRefused read it as a server not (yet) up.
var errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" || req.URL.Host != t.host {
		return t.fallback.RoundTrip(req)
	}
	hp := t.handler.Load()
	if hp == nil {
		closeBody(req)
		return nil, errRefused
	}
	ctx, cancel := context.WithCancel(req.Context())
	sreq := t.serverRequest(ctx, req)
	w := &responseWriter{header: http.Header{}, ready: make(chan struct{}), pipe: newPipe(pipeLimit), done: ctx.Done()}
	w.buf = bufio.NewWriterSize(w.pipe, writeBuffer)
	go serve(*hp, w, sreq, req, cancel)
	select {
	case <-w.ready:
	case <-ctx.Done():
		if err := req.Context().Err(); err != nil {
			// The handler sees its context done and returns.
			w.pipe.closeRead()
			return nil, err
		}
		// Ended by serve, once the handler returned and its response
		// was made ready.
		<-w.ready
	}
	if w.err != nil {
		return nil, w.err
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          &body{pipe: w.pipe, cancel: cancel},
		ContentLength: -1,
		Request:       req,
	}, nil
}

// serverRequest is req as a server receives it: a path, the transport's
// token, no body but the one sent.
func (t *Transport) serverRequest(ctx context.Context, req *http.Request) *http.Request {
	sreq := req.Clone(ctx)
	sreq.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	sreq.RequestURI = req.URL.RequestURI()
	if sreq.Host == "" {
		sreq.Host = req.URL.Host
	}
	sreq.Proto, sreq.ProtoMajor, sreq.ProtoMinor = "HTTP/1.1", 1, 1
	sreq.RemoteAddr = remoteAddr
	// The process's clients hold no credentials for it: the request is
	// the transport's user's, whatever it said.
	sreq.Header.Set("Authorization", "Bearer "+t.token)
	sreq.GetBody = nil
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	return sreq
}

// serve runs h for the request, as net/http's server would: a panic aborts
// the response (http.ErrAbortHandler silently).
func serve(h http.Handler, w *responseWriter, sreq, req *http.Request, cancel context.CancelFunc) {
	defer cancel()
	defer closeBody(req)
	defer func() {
		p := recover()
		if p == nil {
			w.finish(nil)
			return
		}
		if p != http.ErrAbortHandler {
			klog.Background().Error(fmt.Errorf("%v", p), "In-process request handler panicked", "method", sreq.Method, "uri", sreq.RequestURI)
		}
		w.finish(io.ErrUnexpectedEOF)
	}()
	h.ServeHTTP(w, sreq)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// responseWriter hands a response to RoundTrip: its status and headers once
// written, its body through pipe.
type responseWriter struct {
	mu     sync.Mutex
	header http.Header
	// sent is header as it was when the status was written.
	sent   http.Header
	status int
	// ready is closed once the status and headers are sent, or err is set.
	ready chan struct{}
	err   error
	buf   *bufio.Writer
	pipe  *pipe
	done  <-chan struct{}
}

// kube-apiserver's filters wrap a writer so that it flushes (as a watch
// needs) only when it is both a Flusher and a CloseNotifier, as net/http's
// HTTP/2 writer is.
var _ http.Flusher = &responseWriter{}

//lint:ignore SA1019 kube-apiserver's filters still ask for it (above).
var _ http.CloseNotifier = &responseWriter{}

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(code)
}

func (w *responseWriter) writeHeaderLocked(code int) {
	// Informational statuses are not the response's.
	if w.sent != nil || (code >= 100 && code < 200) {
		return
	}
	w.status, w.sent = code, w.header.Clone()
	close(w.ready)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(http.StatusOK)
	return w.buf.Write(b)
}

func (w *responseWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeaderLocked(http.StatusOK)
	_ = w.buf.Flush()
}

// CloseNotify is closed when the client closes the body or its request's
// context is done.
func (w *responseWriter) CloseNotify() <-chan bool {
	ch := make(chan bool, 1)
	go func() {
		<-w.done
		ch <- true
	}()
	return ch
}

// finish ends the response when the handler returned: a body read to its
// end, or broken with err.
func (w *responseWriter) finish(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if w.sent == nil {
			w.err = errors.New("in-process server: handler aborted before its response")
			close(w.ready)
			w.sent = http.Header{}
		}
		w.pipe.closeWrite(err)
		return
	}
	w.writeHeaderLocked(http.StatusOK)
	w.pipe.closeWrite(w.buf.Flush())
}

// body is a response's body: closing it ends the handler's request.
type body struct {
	pipe   *pipe
	cancel context.CancelFunc
}

func (b *body) Read(p []byte) (int, error) { return b.pipe.Read(p) }

func (b *body) Close() error {
	b.pipe.closeRead()
	b.cancel()
	return nil
}
