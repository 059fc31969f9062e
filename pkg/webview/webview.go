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

// Package webview holds the web view of a simulator (simulators/NAME/ui/):
// plain HTML, CSS and JavaScript, embedded in the binary, with no build
// step and nothing loaded from elsewhere. The page speaks only to URLs
// relative to itself, the same simulator's proxy and api subresources and
// the namespace's nodepools, so the host's RBAC decides every call it
// makes.
//
// It is a leaf (standard library only): the registry resolves the
// simulator and the caller's rights, then hands the asset's name here.
package webview

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed assets
var embedded embed.FS

// ContentSecurityPolicy is sent with every asset: scripts, styles and
// connections from the page's own origin only, no inline script or style
// and no eval, no plugins, no framing, no form posts, no <base>.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Index is the asset served for the view's root (ui/).
const Index = "index.html"

type asset struct {
	body        []byte
	contentType string
	etag        string
}

var assets = load()

func load() map[string]asset {
	out := map[string]asset{}
	err := fs.WalkDir(embedded, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := embedded.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		out[strings.TrimPrefix(p, "assets/")] = asset{
			body:        body,
			contentType: contentType(p),
			etag:        `"` + hex.EncodeToString(sum[:12]) + `"`,
		}
		return nil
	})
	if err != nil {
		panic("webview: reading the embedded assets: " + err.Error())
	}
	return out
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Name returns the asset that a path under ui/ names ("" and "/" name
// Index), and whether there is one. Names are flat: a path that climbs
// or has a directory names none.
func Name(p string) (string, bool) {
	name := strings.TrimPrefix(p, "/")
	if name == "" {
		name = Index
	}
	if strings.Contains(name, "/") {
		return "", false
	}
	_, ok := assets[name]
	return name, ok
}

// Names lists the assets.
func Names() []string {
	var out []string
	for name := range assets {
		out = append(out, name)
	}
	return out
}

// movedPage sends a browser from ui to ui/, where the page's relative URLs
// work. It is a page, not a redirect: the host's aggregator refuses to pass
// on a redirect from an aggregated server (a 502), and a page with a
// relative refresh works behind any prefix (kubectl proxy, an
// authenticating front).
const movedPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=ui/">
<title>Simulator</title></head><body><p><a href="ui/">ui/</a></p></body></html>
`

// ServeMoved answers a request for the view without its trailing slash
// with a page that moves the browser on to ui/.
func ServeMoved(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "private, no-cache")
	http.ServeContent(w, r, "", time.Time{}, strings.NewReader(movedPage))
}

// Serve writes the asset name (as Name returned it) with its headers; a
// conditional request with its ETag gets 304. An unknown name gets 404.
func Serve(w http.ResponseWriter, r *http.Request, name string) {
	a, ok := assets[name]
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if !ok {
		http.NotFound(w, r)
		return
	}
	h.Set("Content-Type", a.contentType)
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	// Names carry no version: a browser may keep an asset, but asks again
	// (If-None-Match) before it uses it, so an upgraded server's page is
	// never mixed with an older script.
	h.Set("Cache-Control", "private, no-cache")
	h.Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
