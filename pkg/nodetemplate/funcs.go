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

// Package nodetemplate holds the Go-template language of NodePool templates:
// per-index values such as {{ .Index }} and {{ AddCIDR "10.0.0.0/24" .Index }}.
package nodetemplate

import (
	"fmt"
	"math/big"
	"net/netip"
	"strings"
	"text/template"
)

// Values are what a template may refer to.
type Values struct {
	// Index is the Node's index in its pool, from 0.
	Index int
	// Name is the Node's name.
	Name string
	// Pool is the pool's name.
	Pool string
}

var funcs = template.FuncMap{
	"AddCIDR": AddCIDR,
	// mod spreads Nodes over a few values, e.g. zones: zone-{{ mod .Index 3 }}.
	"mod": func(a, b int) (int, error) {
		if b == 0 {
			return 0, fmt.Errorf("mod: division by zero")
		}
		return a % b, nil
	},
}

// Template is a parsed template string and the most it can render.
type Template struct {
	t     *template.Template // nil for a constant
	text  string
	bound int
}

// Parse compiles one template string. Templates are rendered for every
// Node of a pool, and in the request path (validation), so Parse refuses
// one whose output could exceed MaxValueBytes, or whose work MaxSteps, for
// any Values, not only those validation tries: it walks the parse tree
// once, bounding what each node prints (see bound). Templates may use
// values, the allowed functions, pipelines and if; neither loops (range)
// nor variables, with, template definitions and calls.
func Parse(s string) (*Template, error) {
	if len(s) > MaxValueBytes {
		return nil, fmt.Errorf("longer than %d bytes", MaxValueBytes)
	}
	if !strings.Contains(s, "{{") {
		return &Template{text: s, bound: len(s)}, nil
	}
	t, err := template.New("").Funcs(funcs).Option("missingkey=error").Parse(s)
	if err != nil {
		return nil, err
	}
	if len(t.Templates()) > 1 {
		return nil, fmt.Errorf("template definitions (define, block) are not allowed")
	}
	n, err := bound(t.Tree)
	if err != nil {
		return nil, err
	}
	if n > MaxValueBytes {
		return nil, fmt.Errorf("may render up to %d bytes for some Node, more than the %d allowed", n, MaxValueBytes)
	}
	return &Template{t: t, text: s, bound: n}, nil
}

// Bound is the most bytes the template renders, for any Values.
func (t *Template) Bound() int { return t.bound }

// Render evaluates the template for one Node.
func (t *Template) Render(v Values) (string, error) {
	if t.t == nil {
		return t.text, nil
	}
	if len(v.Name) > MaxNameBytes || len(v.Pool) > MaxNameBytes {
		return "", fmt.Errorf("names longer than %d bytes", MaxNameBytes)
	}
	// The bound holds by construction; the writer's limit is the backstop.
	w := limitedWriter{limit: t.bound}
	if err := t.t.Execute(&w, v); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

type limitedWriter struct {
	b     strings.Builder
	limit int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.limit {
		return 0, fmt.Errorf("output exceeds the template's bound of %d bytes", w.limit)
	}
	return w.b.Write(p)
}

// AddCIDR returns the index-th block of the size of cidr after cidr: with
// "10.0.0.0/24" and 2, "10.0.2.0/24". It fails when the result leaves the
// address family.
func AddCIDR(cidr string, index int) (string, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return "", fmt.Errorf("AddCIDR: %w", err)
	}
	if index < 0 {
		return "", fmt.Errorf("AddCIDR: negative index %d", index)
	}
	p = p.Masked()
	bits := p.Addr().BitLen()
	addr := new(big.Int).SetBytes(p.Addr().AsSlice())
	step := new(big.Int).Lsh(big.NewInt(int64(index)), uint(bits-p.Bits()))
	addr.Add(addr, step)
	if addr.BitLen() > bits {
		return "", fmt.Errorf("AddCIDR: %s + %d blocks overflows the address space", cidr, index)
	}
	buf := make([]byte, bits/8)
	addr.FillBytes(buf)
	next, _ := netip.AddrFromSlice(buf)
	return netip.PrefixFrom(next, p.Bits()).String(), nil
}
