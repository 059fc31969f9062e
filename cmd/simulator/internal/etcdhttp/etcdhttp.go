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

// Package etcdhttp talks to the inner kube-apiserver's etcd over the
// connection kube-apiserver makes (the same endpoints, the same CA and
// client certificate), through etcd's HTTP API and its gRPC gateway
// (/v3/...): the simulator needs a handful of requests of etcd, not a gRPC
// client.
package etcdhttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	certutil "k8s.io/client-go/util/cert"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/config"
)

// timeout bounds one request.
const timeout = 5 * time.Second

// bulkTimeout bounds one request of a bulk client: a transaction of a
// megabyte on a busy machine.
const bulkTimeout = 30 * time.Second

// Client is an HTTP client for the etcd of o.
type Client struct {
	http *http.Client
	tls  *tls.Config
	// Endpoints are the scheme://host of each etcd URL of o, in order.
	Endpoints []string
}

// NewClient makes kube-apiserver's connection: etcd's CA and the client
// certificate of o's etcd TLS files when there are some, else the system's
// roots and no certificate.
func NewClient(o *config.Options) (*Client, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile, certFile, keyFile := o.EtcdTLSFiles(); caFile != "" {
		pool, err := certutil.NewPool(caFile)
		if err != nil {
			return nil, fmt.Errorf("etcd's CA: %w", err)
		}
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("the etcd client certificate: %w", err)
		}
		tlsConfig.RootCAs, tlsConfig.Certificates = pool, []tls.Certificate{pair}
	}
	c := &Client{http: newHTTPClient(tlsConfig, timeout, false), tls: tlsConfig}
	for i, raw := range strings.Split(o.EtcdURL, ",") {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("etcd URL %d: %w", i+1, err)
		}
		c.Endpoints = append(c.Endpoints, (&url.URL{Scheme: u.Scheme, Host: u.Host}).String())
	}
	return c, nil
}

func newHTTPClient(tlsConfig *tls.Config, timeout time.Duration, keepAlive bool) *http.Client {
	return &http.Client{
		Timeout: timeout,
		// No proxy from the environment: kube-apiserver dials etcd directly.
		Transport: &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: !keepAlive, MaxIdleConnsPerHost: 4},
		// etcd never redirects; a URL that does is not etcd, and following
		// it would make the Pod fetch wherever it points.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Bulk returns a client of the same etcd for many large requests: its
// connections are kept between requests, and a request may take longer.
func (c *Client) Bulk() *Client {
	return &Client{http: newHTTPClient(c.tls, bulkTimeout, true), tls: c.tls, Endpoints: c.Endpoints}
}

// Close releases the client's connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Health asks endpoint's /health; nil when it answers 200.
func (c *Client) Health(ctx context.Context, endpoint string) error {
	resp, err := c.do(ctx, http.MethodGet, endpoint+"/health", nil)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	// The status code only: errors end up in the simulator's status, which
	// readers of the simulator see, and spec.etcdURL may name any server.
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/health answered %d", resp.StatusCode)
	}
	return nil
}

// KeyValue is one etcd key and its value.
type KeyValue struct {
	Key   string
	Value []byte
}

// TxnResult is what etcd answered a transaction.
type TxnResult struct {
	// Succeeded: its puts were made (no key existed).
	Succeeded bool
	// Revision is etcd's revision after it.
	Revision int64
}

// CreateAll puts every key of kvs in one transaction, only if none of them
// exists (etcd's own create-if-absent: CreateRevision == 0). It returns
// whether they were written. etcd refuses a transaction of more than its
// --max-txn-ops (128 by default) puts or --max-request-bytes (1.5 MiB):
// see Batches.
func (c *Client) CreateAll(ctx context.Context, endpoint string, kvs []KeyValue) (TxnResult, error) {
	type compare struct {
		Key            string `json:"key"`
		Target         string `json:"target"`
		Result         string `json:"result"`
		CreateRevision string `json:"create_revision"`
	}
	type put struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	type op struct {
		RequestPut put `json:"request_put"`
	}
	var txn struct {
		Compare []compare `json:"compare"`
		Success []op      `json:"success"`
	}
	for _, kv := range kvs {
		key := base64.StdEncoding.EncodeToString([]byte(kv.Key))
		txn.Compare = append(txn.Compare, compare{Key: key, Target: "CREATE", Result: "EQUAL", CreateRevision: "0"})
		txn.Success = append(txn.Success, op{RequestPut: put{Key: key, Value: base64.StdEncoding.EncodeToString(kv.Value)}})
	}
	body, err := json.Marshal(txn)
	if err != nil {
		return TxnResult{}, err
	}
	resp, err := c.do(ctx, http.MethodPost, endpoint+"/v3/kv/txn", body)
	if err != nil {
		return TxnResult{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return TxnResult{}, fmt.Errorf("/v3/kv/txn answered %d", resp.StatusCode)
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return TxnResult{}, fmt.Errorf("reading etcd's answer: %w", err)
	}
	// The gateway writes 64-bit integers as strings.
	var result struct {
		Header struct {
			Revision int64 `json:"revision,string"`
		} `json:"header"`
		Succeeded bool `json:"succeeded"`
	}
	if err := json.Unmarshal(answer, &result); err != nil {
		return TxnResult{}, fmt.Errorf("decoding etcd's answer: %w", err)
	}
	return TxnResult{Succeeded: result.Succeeded, Revision: result.Header.Revision}, nil
}

// Limits of one transaction that etcd's defaults take: --max-txn-ops is
// 128, and --max-request-bytes 1.5 MiB of the request as gRPC carries it
// (the keys and values, with a little framing).
const (
	MaxTxnOps   = 128
	MaxTxnBytes = 1 << 20
)

// Batch gathers keys into one transaction within limits: at most
// maxOps keys and, unless one key and value alone are larger, maxBytes
// of keys and values.
type Batch struct {
	maxOps, maxBytes int
	kvs              []KeyValue
	size             int
}

// NewBatch returns an empty batch of those limits.
func NewBatch(maxOps, maxBytes int) *Batch { return &Batch{maxOps: maxOps, maxBytes: maxBytes} }

// Fits says whether kv can join the batch; an empty one takes any.
func (b *Batch) Fits(kv KeyValue) bool {
	return len(b.kvs) == 0 || (len(b.kvs) < b.maxOps && b.size+len(kv.Key)+len(kv.Value) <= b.maxBytes)
}

// Add adds kv, whether or not it Fits.
func (b *Batch) Add(kv KeyValue) {
	b.kvs = append(b.kvs, kv)
	b.size += len(kv.Key) + len(kv.Value)
}

// Len is how many keys it holds.
func (b *Batch) Len() int { return len(b.kvs) }

// Take returns its keys and empties it.
func (b *Batch) Take() []KeyValue {
	kvs := b.kvs
	b.kvs, b.size = nil, 0
	return kvs
}

// Batches splits kvs into transactions within the limits of a Batch, in
// order.
func Batches(kvs []KeyValue, maxOps, maxBytes int) [][]KeyValue {
	var out [][]KeyValue
	b := NewBatch(maxOps, maxBytes)
	for _, kv := range kvs {
		if !b.Fits(kv) {
			out = append(out, b.Take())
		}
		b.Add(kv)
	}
	if b.Len() > 0 {
		out = append(out, b.Take())
	}
	return out
}

func (c *Client) do(ctx context.Context, method, u string, body []byte) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// The url.Error repeats the URL; its cause is the news. A network
		// error is said as the network said it: net/http may wrap one in
		// names of its own (a TLS alert read while the connection idles
		// comes as "readLoopPeekFailLocked: remote error: tls: ...").
		if oe := (*net.OpError)(nil); errors.As(err, &oe) {
			return nil, oe
		}
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			return nil, ue.Err
		}
		return nil, err
	}
	return resp, nil
}
