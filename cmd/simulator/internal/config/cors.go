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

package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// OriginRegexps turns origins such as http://localhost:3000 into anchored,
// escaped regular expressions, the form kube-apiserver's
// --cors-allowed-origins takes: each matches its origin exactly and nothing
// else (no subdomain, no suffix, no other scheme or port).
func OriginRegexps(origins []string) ([]string, error) {
	out := make([]string, 0, len(origins))
	for _, origin := range origins {
		normalized, err := normalizeOrigin(origin)
		if err != nil {
			return nil, err
		}
		out = append(out, "^"+regexp.QuoteMeta(normalized)+"$")
	}
	return out, nil
}

// CompileOrigins compiles the regular expressions of OriginRegexps, for the
// simulator server's own CORS handling.
func CompileOrigins(origins []string) ([]*regexp.Regexp, error) {
	exprs, err := OriginRegexps(origins)
	if err != nil {
		return nil, err
	}
	out := make([]*regexp.Regexp, 0, len(exprs))
	for _, e := range exprs {
		out = append(out, regexp.MustCompile(e))
	}
	return out, nil
}

// normalizeOrigin checks that origin is scheme://host[:port] (a trailing
// slash is dropped) and returns it in the form browsers send in the Origin
// header: scheme and host in lower case.
func normalizeOrigin(origin string) (string, error) {
	u, err := url.Parse(strings.TrimSuffix(origin, "/"))
	if err != nil {
		return "", fmt.Errorf("origin %q: %w", origin, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("origin %q: scheme must be http or https", origin)
	}
	if u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("origin %q: must be scheme://host[:port]", origin)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}
