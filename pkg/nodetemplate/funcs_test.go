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

package nodetemplate

import (
	"strings"
	"testing"
)

func TestAddCIDR(t *testing.T) {
	cases := []struct {
		cidr    string
		index   int
		want    string
		wantErr bool
	}{
		{cidr: "10.0.0.0/24", index: 0, want: "10.0.0.0/24"},
		{cidr: "10.0.0.0/24", index: 2, want: "10.0.2.0/24"},
		{cidr: "10.0.0.0/24", index: 256, want: "10.1.0.0/24"},
		{cidr: "10.0.0.7/24", index: 1, want: "10.0.1.0/24"},
		{cidr: "fd00::/64", index: 3, want: "fd00:0:0:3::/64"},
		{cidr: "255.255.255.0/24", index: 1, wantErr: true},
		{cidr: "10.0.0.0/24", index: -1, wantErr: true},
		{cidr: "nope", index: 0, wantErr: true},
	}
	for _, tc := range cases {
		got, err := AddCIDR(tc.cidr, tc.index)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("AddCIDR(%q, %d) = %q, %v; want %q, error %v", tc.cidr, tc.index, got, err, tc.want, tc.wantErr)
		}
	}
}

// render parses and renders s, as the Node builder does.
func render(s string, v Values) (string, error) {
	t, err := Parse(s)
	if err != nil {
		return "", err
	}
	return t.Render(v)
}

func TestRender(t *testing.T) {
	v := Values{Index: 12, Name: "pool-12", Pool: "pool"}
	cases := map[string]string{
		"plain":                              "plain",
		"n{{ .Index }}":                      "n12",
		"{{ .Pool }}/{{ .Name }}":            "pool/pool-12",
		`{{ AddCIDR "10.0.0.0/24" .Index }}`: "10.0.12.0/24",
		"zone-{{ mod .Index 5 }}":            "zone-2",
	}
	for in, want := range cases {
		got, err := render(in, v)
		if err != nil || got != want {
			t.Errorf("Render(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"{{ .Missing }}", "{{ mod .Index 0 }}", "{{ nope }}", "{{ .Name.Foo }}"} {
		if _, err := render(bad, v); err == nil {
			t.Errorf("Render(%q) must fail", bad)
		}
	}
}

// TestParseBounded: what could make a template cost more than its length
// is refused when parsed, so validation refuses it before any Node is made.
func TestParseBounded(t *testing.T) {
	refused := map[string]string{
		"range":                       `{{ range 1000000000000 }}x{{ end }}`,
		"variables":                   `{{ $x := printf "%9s" .Name }}{{ print $x $x }}`,
		"with":                        `{{ with printf "%9s" .Name }}{{ print . . }}{{ end }}`,
		"define":                      `{{ define "x" }}x{{ end }}`,
		"template call":               `{{ template "x" }}`,
		"block":                       `{{ block "x" . }}x{{ end }}`,
		"escapers multiply":           `{{ js (js (js .Name)) }}`,
		"html":                        `{{ html .Name }}`,
		"urlquery":                    `{{ urlquery .Name }}`,
		"call":                        `{{ call .Name }}`,
		"unknown field":               `{{ .Missing }}`,
		"format not a constant":       `{{ printf .Name 1 }}`,
		"index of a missing argument": `{{ printf "%[2]s" .Name }}`,
		"floats":                      `{{ printf "%f" 1e300 }}`,
		// Each stage doubles what the last made: nine make 10^10 bytes.
		"argument indexes multiplying": `{{ printf "%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s" .Name | ` +
			`printf "%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s" | ` +
			`printf "%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s%[1]s" }}`,
		// Validation renders the first Node; the bound covers every branch.
		"a branch for other Nodes": `{{ if eq .Index 0 }}ok{{ else }}` + strings.Repeat(`{{ printf "%256s" .Name }}`, 20) + `{{ end }}`,
		"too many steps":           strings.Repeat(`{{ .Index }}`, MaxSteps+1),
		"too long":                 strings.Repeat("x", MaxValueBytes+1),
	}
	for name, s := range refused {
		if _, err := Parse(s); err == nil {
			t.Errorf("%s: Parse(%q) must fail", name, s)
		}
	}
	wide := map[string]string{
		"width":          `{{ printf "%999999999d" 1 }}`,
		"precision":      `{{ printf "%.999999999f" 1.0 }}`,
		"width argument": `{{ printf "%*d" 1000000000 1 }}`,
	}
	for name, s := range wide {
		if _, err := render(s, Values{}); err == nil {
			t.Errorf("%s: Render(%q) must fail", name, s)
		}
	}
	allowed := map[string]string{
		`{{ if eq (mod .Index 2) 0 }}even{{ else }}odd{{ end }}`: "even",
		`{{ printf "%03d" .Index }}`:                             "000",
		`{{ .Name | printf "%s-x" }}`:                            "pool-0-x",
		`{{ $.Pool }}`:                                           "pool",
		`{{ printf "%%" }}`:                                      "%",
	}
	for s, want := range allowed {
		if got, err := render(s, Values{Name: "pool-0", Pool: "pool"}); err != nil || got != want {
			t.Errorf("Render(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
}

// TestBound: the bound of common templates is close to what they render,
// so that validation's per-Node sum does not refuse ordinary pools.
func TestBound(t *testing.T) {
	cases := map[string]int{
		"plain":                                          5,
		"n{{ .Index }}":                                  21,
		"{{ .Pool }}/{{ .Name }}":                        2*MaxNameBytes + 1,
		`{{ AddCIDR "10.0.0.0/24" .Index }}`:             cidrBytes,
		`{{ printf "%05d" .Index }}`:                     intBytes + 1 + 5,
		`{{ if .Index }}{{ .Name }}{{ else }}-{{ end }}`: MaxNameBytes,
		`{{ printf "%[1]s%[1]s" .Name }}`:                2 * (MaxNameBytes + 1),
	}
	for s, want := range cases {
		tmpl, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if got := tmpl.Bound(); got != want {
			t.Errorf("Parse(%q).Bound() = %d, want %d", s, got, want)
		}
	}
}
