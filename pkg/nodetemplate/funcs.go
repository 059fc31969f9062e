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
	"text/template/parse"
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
	// In place of the builtin, whose widths ("%999999999d") make strings of
	// any size.
	"printf": boundedPrintf,
}

// maxWidth bounds a printf width or precision.
const maxWidth = 256

// allowedFuncs are the functions a template may call: ours and the
// builtins whose output is no longer than their arguments plus a bound.
// Escapers (html, js, urlquery) multiply their input's size, call reaches
// outside.
var allowedFuncs = map[string]bool{
	"AddCIDR": true, "mod": true, "printf": true, "print": true, "println": true,
	"len": true, "index": true, "slice": true,
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"and": true, "or": true, "not": true,
}

// Parse compiles one template string. Templates are rendered per Node and
// in the request path (validation), so their time and output must be
// bounded by their length: they may use values, the allowed functions
// (bounded printf widths), pipelines and if, but neither loops (range) nor
// what lets one value be used many times over (variables, with) nor
// template definitions and calls.
func Parse(s string) (*template.Template, error) {
	t, err := template.New("").Funcs(funcs).Option("missingkey=error").Parse(s)
	if err != nil {
		return nil, err
	}
	if len(t.Templates()) > 1 {
		return nil, fmt.Errorf("template definitions (define, block) are not allowed")
	}
	if t.Tree == nil {
		return t, nil
	}
	if err := checkNode(t.Tree.Root); err != nil {
		return nil, err
	}
	return t, nil
}

// checkNode refuses what Parse does not allow in n and below.
func checkNode(n parse.Node) error {
	switch n := n.(type) {
	case nil:
		return nil
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkNode(c); err != nil {
				return err
			}
		}
		return nil
	case *parse.TextNode, *parse.CommentNode, *parse.DotNode, *parse.FieldNode, *parse.StringNode,
		*parse.NumberNode, *parse.BoolNode, *parse.NilNode:
		return nil
	case *parse.VariableNode:
		if len(n.Ident) > 0 && n.Ident[0] != "$" {
			return fmt.Errorf("variables are not allowed")
		}
		return nil
	case *parse.IdentifierNode:
		if !allowedFuncs[n.Ident] {
			return fmt.Errorf("function %q is not allowed", n.Ident)
		}
		return nil
	case *parse.ActionNode:
		return checkNode(n.Pipe)
	case *parse.IfNode:
		if err := checkNode(n.Pipe); err != nil {
			return err
		}
		if err := checkNode(n.List); err != nil {
			return err
		}
		return checkNode(n.ElseList)
	case *parse.PipeNode:
		if n == nil {
			return nil
		}
		if len(n.Decl) > 0 {
			return fmt.Errorf("variables are not allowed")
		}
		for _, c := range n.Cmds {
			if err := checkNode(c); err != nil {
				return err
			}
		}
		return nil
	case *parse.CommandNode:
		for _, a := range n.Args {
			if err := checkNode(a); err != nil {
				return err
			}
		}
		return nil
	case *parse.ChainNode:
		return checkNode(n.Node)
	case *parse.RangeNode:
		return fmt.Errorf("range is not allowed")
	case *parse.WithNode:
		return fmt.Errorf("with is not allowed")
	case *parse.TemplateNode:
		return fmt.Errorf("template calls are not allowed")
	}
	return fmt.Errorf("%s is not allowed", n)
}

// boundedPrintf is fmt.Sprintf refusing widths and precisions above
// maxWidth and those given as arguments (*).
func boundedPrintf(format string, args ...any) (string, error) {
	digits := 0
	inVerb := false
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case !inVerb:
			inVerb = c == '%'
			continue
		case c == '*':
			return "", fmt.Errorf("printf: widths from arguments (*) are not allowed")
		case c >= '0' && c <= '9':
			digits = digits*10 + int(c-'0')
			if digits > maxWidth {
				return "", fmt.Errorf("printf: widths and precisions above %d are not allowed", maxWidth)
			}
			continue
		case c == '.':
			digits = 0
			continue
		case c == '+' || c == '-' || c == '#' || c == ' ' || c == '[' || c == ']':
			continue
		}
		// A verb (or %%) ends the directive.
		inVerb, digits = false, 0
	}
	return fmt.Sprintf(format, args...), nil
}

// Render evaluates a template string for one Node. Strings without "{{" are
// returned as they are, so constant fields cost nothing per Node.
func Render(s string, v Values) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	t, err := Parse(s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
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
