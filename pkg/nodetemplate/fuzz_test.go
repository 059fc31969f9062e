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
	"net/netip"
	"testing"
)

// FuzzRender: no template string makes Render panic, and what it renders
// for any Values stays within the bound Parse computed, itself within
// MaxValueBytes.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"plain", "n{{ .Index }}", "{{ .Pool }}/{{ .Name }}", `{{ AddCIDR "10.0.0.0/24" .Index }}`,
		`{{ AddCIDR "fd00::/64" .Index }}`, "zone-{{ mod .Index 3 }}", `{{ printf "%05d" .Index }}`,
		`{{ if gt .Index 2 }}big{{ end }}`, `{{ print $ . . }}`, `{{ range 10 }}x{{ end }}`,
		`{{ $x := .Name }}{{ $x }}`, `{{ printf "%256s%256s" .Name .Pool }}`, "{{", "}}{{", `{{ index .Name 0 }}`,
		`{{ slice .Name 1 }}`, `{{ js .Name }}`, `{{ printf "% #x" . }}`, `{{ printf "%#v" $ }}`,
		`{{ printf "%[1]s%[1]s" .Name | printf "%[1]s%[1]s" }}`, `{{ printf "%[2]s" .Name }}`,
		`{{ printf "%d %s" .Name }}`, `{{ printf "%" .Name }}`, `{{ printf "%q" .Name | printf "%+q" }}`,
		`{{ or .Name .Pool | len }}`, `{{ println . | printf "%x" }}`,
	} {
		f.Add(s, 7, "pool-7", "pool")
	}
	f.Fuzz(func(t *testing.T, s string, index int, name, pool string) {
		tmpl, err := Parse(s)
		if err != nil {
			return
		}
		if tmpl.Bound() > MaxValueBytes {
			t.Fatalf("Parse(%q) accepted a bound of %d bytes", s, tmpl.Bound())
		}
		out, err := tmpl.Render(Values{Index: index, Name: truncate(name), Pool: truncate(pool)})
		if err != nil {
			return
		}
		if len(out) > tmpl.Bound() {
			t.Errorf("Render(%q) gave %d bytes, more than its bound %d", s, len(out), tmpl.Bound())
		}
	})
}

func truncate(s string) string {
	if len(s) > MaxNameBytes {
		return s[:MaxNameBytes]
	}
	return s
}

// FuzzAddCIDR: AddCIDR never panics, and what it returns is a prefix of the
// same size and family as its input.
func FuzzAddCIDR(f *testing.F) {
	f.Add("10.0.0.0/24", 3)
	f.Add("fd00::/64", 1<<40)
	f.Add("255.255.255.255/32", 1)
	f.Add("::/0", 0)
	f.Fuzz(func(t *testing.T, cidr string, index int) {
		out, err := AddCIDR(cidr, index)
		if err != nil {
			return
		}
		in := netip.MustParsePrefix(cidr) // AddCIDR succeeded: it parses
		got, err := netip.ParsePrefix(out)
		if err != nil || got.Bits() != in.Bits() || got.Addr().BitLen() != in.Addr().BitLen() {
			t.Errorf("AddCIDR(%q, %d) = %q (%v), want a prefix like %s", cidr, index, out, err, in)
		}
	})
}
