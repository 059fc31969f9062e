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

package webview

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for _, c := range []struct {
		path, want string
		ok         bool
	}{
		{"", Index, true},
		{"/", Index, true},
		{"/index.html", Index, true},
		{"app.js", "app.js", true},
		{"/app.css", "app.css", true},
		{"/nothing.js", "nothing.js", false},
		{"/../proxy", "", false},
		{"/assets/app.js", "", false},
		{"/a/b", "", false},
	} {
		got, ok := Name(c.path)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("Name(%q) = %q, %v; want %q, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

func TestServe(t *testing.T) {
	for _, c := range []struct {
		name, contentType string
	}{
		{"index.html", "text/html; charset=utf-8"},
		{"app.js", "text/javascript; charset=utf-8"},
		{"k8s.js", "text/javascript; charset=utf-8"},
		{"app.css", "text/css; charset=utf-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			Serve(w, httptest.NewRequest(http.MethodGet, "/ui/"+c.name, nil), c.name)
			if w.Code != http.StatusOK || w.Body.Len() == 0 {
				t.Fatalf("status %d, %d bytes", w.Code, w.Body.Len())
			}
			h := w.Result().Header
			for k, want := range map[string]string{
				"Content-Type":            c.contentType,
				"Content-Security-Policy": ContentSecurityPolicy,
				"X-Content-Type-Options":  "nosniff",
				"X-Frame-Options":         "DENY",
				"Cache-Control":           "private, no-cache",
			} {
				if got := h.Get(k); got != want {
					t.Errorf("%s: %q, want %q", k, got, want)
				}
			}
			etag := h.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			req := httptest.NewRequest(http.MethodGet, "/ui/"+c.name, nil)
			req.Header.Set("If-None-Match", etag)
			w = httptest.NewRecorder()
			Serve(w, req, c.name)
			if w.Code != http.StatusNotModified {
				t.Errorf("with If-None-Match: %d, want 304", w.Code)
			}
		})
	}
	w := httptest.NewRecorder()
	Serve(w, httptest.NewRequest(http.MethodGet, "/ui/x.js", nil), "x.js")
	if w.Code != http.StatusNotFound || w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("an unknown asset: %d %v, want 404 nosniff", w.Code, w.Header())
	}
}

// TestPolicy keeps the policy strict: nothing from elsewhere, nothing
// inline, no eval.
func TestPolicy(t *testing.T) {
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(ContentSecurityPolicy, want) {
			t.Errorf("the policy lacks %q", want)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "http:", "https:", "data:", "*"} {
		if strings.Contains(ContentSecurityPolicy, bad) {
			t.Errorf("the policy allows %q", bad)
		}
	}
}

// TestAssets checks the assets as text: what the page loads is there,
// relative, with nothing inline; the scripts never parse a string as
// markup or code (values from a cluster can hold markup) and call only
// URLs relative to the page.
func TestAssets(t *testing.T) {
	index := string(assets[Index].body)
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"#]+)"`).FindAllStringSubmatch(index, -1) {
		if _, ok := assets[m[1]]; !ok {
			t.Errorf("index.html loads %q, which is not an asset", m[1])
		}
	}
	if m := regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]+</script>|<style|\sstyle=|\son[a-z]+=`).FindString(index); m != "" {
		t.Errorf("index.html has inline script or style: %q", m)
	}
	forbidden := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setTimeout\(['"]|https?://`)
	absolute := regexp.MustCompile(`(?:fetch|call)\([^,)]*['"\x60]/`)
	names := Names()
	slices.Sort(names)
	for _, name := range names {
		if !strings.HasSuffix(name, ".js") {
			continue
		}
		body := string(assets[name].body)
		// The licence header names the licence's URL.
		body = body[strings.Index(body, "*/")+2:]
		if m := forbidden.FindString(body); m != "" {
			t.Errorf("%s uses %q", name, m)
		}
		if m := absolute.FindString(body); m != "" {
			t.Errorf("%s calls an absolute URL: %q", name, m)
		}
	}
}

// TestElements checks that every element app.js looks up by a literal id,
// and every view it routes to and its tab, are in index.html: a view added to one and
// not the other fails here, not in a browser.
func TestElements(t *testing.T) {
	index := string(assets[Index].body)
	app := string(assets["app.js"].body)
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\('([a-z0-9-]+)'\)`).FindAllStringSubmatch(app, -1) {
		ids[m[1]] = true
	}
	views := regexp.MustCompile(`const VIEWS = \[([^\]]*)\]`).FindStringSubmatch(app)
	if views == nil {
		t.Fatal("app.js has no VIEWS")
	}
	for _, m := range regexp.MustCompile(`'([a-z]+)'`).FindAllStringSubmatch(views[1], -1) {
		ids["view-"+m[1]] = true
		if m[1] != "result" { // a Pod's result is under the Pods' tab
			ids["tab-"+m[1]] = true
		}
	}
	for _, want := range []string{"view-source", "view-scenarios", "tab-source", "tab-scenarios"} {
		if !ids[want] {
			t.Errorf("app.js does not use %s", want)
		}
	}
	for id := range ids {
		if !strings.Contains(index, `id="`+id+`"`) {
			t.Errorf("app.js uses #%s, which index.html lacks", id)
		}
	}
}
