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
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"k8s.io/apiserver/pkg/authentication/user"
)

// FuzzProxyHeaders sends requests with any headers through the proxy, for
// callers of any name, groups and extra: the inner apiserver always sees
// the caller the host authenticated and nothing the request claimed.
func FuzzProxyHeaders(f *testing.F) {
	f.Add("Impersonate-User", "system:admin", "alice", "dev", "scopes.example/x", "a")
	f.Add("impersonate-group", "system:masters", "bob", "system:authenticated", "k", "v")
	f.Add("Authorization", "Bearer stolen", "carol", "", "", "")
	f.Add("X-Remote-Extra-Scopes", "all", "dave", "g", "a%2Fb", "%")
	f.Add("Impersonate-Extra-Foo", "bar", "system:serviceaccount:ns:sa", "system:serviceaccounts", "authentication.kubernetes.io/credential-id", "JTI=x")
	f.Add("Cookie", "session=1", "erin", "g", "ü key", "ü")
	f.Add("X-Remote-Group", "system:masters", "frank", "", "Impersonate-User", "root")
	back := backend(f, nil)
	f.Fuzz(func(t *testing.T, header, value, name, group, extraKey, extraValue string) {
		for _, v := range []string{name, group, extraValue} {
			if v != strings.TrimSpace(v) || strings.ContainsFunc(v, func(r rune) bool { return r < ' ' || r == 0x7f }) {
				// No such identity comes through headers (the host's
				// X-Remote-* ones): HTTP trims or refuses it.
				return
			}
			if !utf8.ValidString(v) {
				return // the backend echoes in JSON, which cannot carry it
			}
		}
		caller := &user.DefaultInfo{Name: name}
		if group != "" {
			caller.Groups = []string{group}
		}
		if extraKey != "" {
			caller.Extra = map[string][]string{extraKey: {extraValue}}
		}
		fr := front(t, back, caller, false)
		req, err := http.NewRequest(http.MethodGet, fr.URL+"/echo/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header[header] = []string{value}
		resp, err := fr.Client().Do(req)
		if err != nil {
			return // not a request a client can send
		}
		defer resp.Body.Close() //nolint:errcheck
		var got struct{ Header http.Header }
		if resp.StatusCode != http.StatusOK {
			// Headers the caller's identity cannot be sent in: refused, not forwarded.
			return
		}
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatal(err)
		}
		h := got.Header
		if h.Get("Impersonate-User") != name {
			t.Errorf("Impersonate-User %q, want %q", h.Get("Impersonate-User"), name)
		}
		if !slices.Equal(h.Values("Impersonate-Group"), caller.Groups) {
			t.Errorf("Impersonate-Group %q, want %q", h.Values("Impersonate-Group"), caller.Groups)
		}
		for _, k := range []string{"Authorization", "Cookie", "X-Remote-User", "X-Remote-Group", "Impersonate-Uid"} {
			if vs := h.Values(k); len(vs) > 0 {
				t.Errorf("%s %q reached the inner apiserver", k, vs)
			}
		}
		for k, vs := range h {
			k = http.CanonicalHeaderKey(k)
			if strings.HasPrefix(k, "X-Remote-Extra-") {
				t.Errorf("%s %q reached the inner apiserver", k, vs)
			}
			escaped, ok := strings.CutPrefix(k, "Impersonate-Extra-")
			if !ok {
				continue
			}
			// As kube's impersonation filter reads it.
			key, err := url.PathUnescape(escaped)
			if err != nil || !strings.EqualFold(key, extraKey) || !slices.Equal(vs, []string{extraValue}) {
				t.Errorf("%s %q (key %q, %v), want only the caller's extra %q=%q", k, vs, key, err, extraKey, extraValue)
			}
		}
	})
}
