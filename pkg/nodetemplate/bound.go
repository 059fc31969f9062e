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
	"fmt"
	"strconv"
	"strings"
	"text/template/parse"
)

// The budget of one template. A template is rendered for every Node of its
// pool, and in the request path by validation, so Parse refuses one that
// could exceed it for any Node, not only for the Node validation renders.
const (
	// MaxValueBytes bounds a template's source and what it renders.
	MaxValueBytes = 4 << 10
	// MaxSteps bounds the parse tree: without loops each node is evaluated
	// at most once, so this bounds a render's work.
	MaxSteps = 256
	// MaxNameBytes bounds Values.Name and Values.Pool: both are DNS labels.
	MaxNameBytes = 63
)

// maxWidth bounds a printf width or precision.
const maxWidth = 256

// The printed sizes of values: a %v-formatted int64 (sign included), a
// bool, an AddCIDR result (an IPv6 prefix), and Values itself
// ("{Index Name Pool}").
const (
	intBytes    = 20
	boolBytes   = 5
	cidrBytes   = len("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128")
	valuesBytes = intBytes + 2*MaxNameBytes + 4
)

// kind is what the analysis knows of a value's type: enough to bound what
// printf makes of it.
type kind int

const (
	kindAny kind = iota
	kindString
	kindInt
	kindBool
)

// value is an upper bound of a value's size as printed with %v.
type value struct {
	n int
	k kind
}

// analysis walks a parse tree once: it refuses what templates may not use
// and bounds, for every possible Values, what each node prints.
type analysis struct {
	steps int
}

// bound returns the most bytes tree may render for any Values within the
// limits above, or why it is not allowed.
func bound(tree *parse.Tree) (int, error) {
	if tree == nil || tree.Root == nil {
		return 0, nil
	}
	var a analysis
	return a.list(tree.Root)
}

func (a *analysis) step() error {
	a.steps++
	if a.steps > MaxSteps {
		return fmt.Errorf("more than %d steps (actions, commands and operands)", MaxSteps)
	}
	return nil
}

// list bounds the output of a list of nodes: the sum of its parts.
func (a *analysis) list(l *parse.ListNode) (int, error) {
	if l == nil {
		return 0, nil
	}
	total := 0
	for _, n := range l.Nodes {
		if err := a.step(); err != nil {
			return 0, err
		}
		var size int
		switch n := n.(type) {
		case *parse.TextNode:
			size = len(n.Text)
		case *parse.CommentNode:
		case *parse.ActionNode:
			v, err := a.pipe(n.Pipe)
			if err != nil {
				return 0, err
			}
			size = v.n
		case *parse.IfNode:
			// The condition prints nothing; either branch may be taken.
			if _, err := a.pipe(n.Pipe); err != nil {
				return 0, err
			}
			then, err := a.list(n.List)
			if err != nil {
				return 0, err
			}
			otherwise, err := a.list(n.ElseList)
			if err != nil {
				return 0, err
			}
			size = max(then, otherwise)
		case *parse.RangeNode:
			return 0, fmt.Errorf("range is not allowed")
		case *parse.WithNode:
			return 0, fmt.Errorf("with is not allowed")
		case *parse.TemplateNode:
			return 0, fmt.Errorf("template calls are not allowed")
		default:
			return 0, fmt.Errorf("%s is not allowed", n)
		}
		total += size
	}
	return total, nil
}

// pipe bounds a pipeline: each command's result is the last argument of
// the next.
func (a *analysis) pipe(p *parse.PipeNode) (value, error) {
	if p == nil {
		return value{}, nil
	}
	if len(p.Decl) > 0 {
		return value{}, fmt.Errorf("variables are not allowed")
	}
	var prev *value
	for _, c := range p.Cmds {
		v, err := a.command(c, prev)
		if err != nil {
			return value{}, err
		}
		prev = &v
	}
	if prev == nil {
		return value{}, nil
	}
	return *prev, nil
}

func (a *analysis) command(c *parse.CommandNode, piped *value) (value, error) {
	if err := a.step(); err != nil {
		return value{}, err
	}
	if len(c.Args) == 0 {
		return value{}, fmt.Errorf("empty command")
	}
	fn, ok := c.Args[0].(*parse.IdentifierNode)
	if !ok {
		if len(c.Args) > 1 || piped != nil {
			return value{}, fmt.Errorf("%s is not a function", c.Args[0])
		}
		return a.operand(c.Args[0])
	}
	return a.call(fn.Ident, c.Args[1:], piped)
}

// operand bounds one argument of a command.
func (a *analysis) operand(n parse.Node) (value, error) {
	if err := a.step(); err != nil {
		return value{}, err
	}
	switch n := n.(type) {
	case *parse.DotNode:
		return value{valuesBytes, kindAny}, nil
	case *parse.FieldNode:
		return field(n.Ident)
	case *parse.VariableNode:
		if n.Ident[0] != "$" {
			return value{}, fmt.Errorf("variables are not allowed")
		}
		if len(n.Ident) == 1 {
			return value{valuesBytes, kindAny}, nil
		}
		return field(n.Ident[1:])
	case *parse.StringNode:
		return value{len(n.Text), kindString}, nil
	case *parse.NumberNode:
		if !n.IsInt {
			return value{}, fmt.Errorf("number %s: only integers are allowed", n.Text)
		}
		return value{intBytes, kindInt}, nil
	case *parse.BoolNode:
		return value{boolBytes, kindBool}, nil
	case *parse.PipeNode:
		return a.pipe(n)
	case *parse.IdentifierNode:
		// A function named as an operand is called without arguments.
		return a.call(n.Ident, nil, nil)
	case *parse.ChainNode:
		return value{}, fmt.Errorf("field chains are not allowed")
	case *parse.NilNode:
		return value{}, fmt.Errorf("nil is not allowed")
	}
	return value{}, fmt.Errorf("%s is not allowed", n)
}

// field bounds .Index, .Name or .Pool, the only fields of Values.
func field(ident []string) (value, error) {
	if len(ident) != 1 {
		return value{}, fmt.Errorf("field chains are not allowed")
	}
	switch ident[0] {
	case "Index":
		return value{intBytes, kindInt}, nil
	case "Name", "Pool":
		return value{MaxNameBytes, kindString}, nil
	}
	return value{}, fmt.Errorf("no field %q: a template may use .Index, .Name and .Pool", ident[0])
}

// call bounds the result of a function: ours, and the builtins whose
// result is bounded by their arguments. Escapers (html, js, urlquery)
// multiply their input's size; call reaches outside.
func (a *analysis) call(name string, argNodes []parse.Node, piped *value) (value, error) {
	if name == "printf" {
		// The format must be a constant, so that its widths and argument
		// indexes are known here.
		if len(argNodes) == 0 {
			return value{}, fmt.Errorf("printf needs a format")
		}
		format, ok := argNodes[0].(*parse.StringNode)
		if !ok {
			return value{}, fmt.Errorf("printf's format must be a string constant")
		}
		args, err := a.operands(argNodes[1:], piped)
		if err != nil {
			return value{}, err
		}
		return printfBound(format.Text, args)
	}
	args, err := a.operands(argNodes, piped)
	if err != nil {
		return value{}, err
	}
	switch name {
	case "AddCIDR":
		return value{cidrBytes, kindString}, nil
	case "mod", "len":
		return value{intBytes, kindInt}, nil
	case "index":
		// Of a string, a byte; anything else fails when rendered.
		return value{intBytes, kindInt}, nil
	case "slice":
		if len(args) == 0 {
			return value{}, nil
		}
		return value{args[0].n, args[0].k}, nil
	case "eq", "ne", "lt", "le", "gt", "ge", "not":
		return value{boolBytes, kindBool}, nil
	case "and", "or":
		// The result is one of the arguments.
		var out value
		for i, v := range args {
			switch {
			case i == 0:
				out.k = v.k
			case v.k != out.k:
				out.k = kindAny
			}
			out.n = max(out.n, v.n)
		}
		return out, nil
	case "print", "println":
		// Operands are %v-formatted, with at most one separator each, and
		// println's newline.
		out := value{n: 1, k: kindString}
		for _, v := range args {
			out.n += v.n + 1
		}
		return out, nil
	}
	return value{}, fmt.Errorf("function %q is not allowed", name)
}

func (a *analysis) operands(nodes []parse.Node, piped *value) ([]value, error) {
	out := make([]value, 0, len(nodes)+1)
	for _, n := range nodes {
		v, err := a.operand(n)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if piped != nil {
		out = append(out, *piped)
	}
	return out, nil
}

// printfBound bounds fmt.Sprintf(format, args...). Each verb costs its
// argument's bound (in the worst formatting: "% #x" spends five bytes per
// byte of a string, errors such as "%!d(string=…)" add their type) plus
// its width and precision; an argument index may use one argument many
// times, and each use is counted. Directives are held to one shape,
// %[flags][[n]][width][.precision]verb, so that this reads them as fmt
// does; widths and precisions above maxWidth, widths from arguments (*)
// and indexes of missing arguments are refused.
func printfBound(format string, args []value) (value, error) {
	total, next := 0, 0
	used := make([]bool, len(args))
	for i := 0; i < len(format); {
		if format[i] != '%' {
			total++
			i++
			continue
		}
		if strings.HasPrefix(format[i:], "%%") {
			total++
			i += 2
			continue
		}
		d, err := parseDirective(format[i:], len(args))
		if err != nil {
			return value{}, fmt.Errorf("printf: %w", err)
		}
		i += d.size
		if d.index > 0 {
			next = d.index - 1
		}
		if next >= len(args) {
			const missingBytes = 16 // "%!d(MISSING)"
			total += missingBytes + d.width + d.prec
			continue
		}
		used[next] = true
		total += verbBound(d.verb, d.sharp, args[next]) + d.width + d.prec
		next++
	}
	// fmt appends the arguments no verb used: "%!(EXTRA type=value, …)".
	for i, v := range args {
		if !used[i] {
			total += v.n + 32
		}
	}
	return value{total, kindString}, nil
}

// directive is one printf verb with what it says.
type directive struct {
	size        int // bytes, from the '%'
	sharp       bool
	index       int // from 1; 0 when not given
	width, prec int
	verb        byte
}

func parseDirective(s string, numArgs int) (directive, error) {
	d := directive{}
	i := 1
	for i < len(s) && strings.IndexByte("+-# 0", s[i]) >= 0 {
		d.sharp = d.sharp || s[i] == '#'
		i++
	}
	if i < len(s) && s[i] == '[' {
		end := strings.IndexByte(s[i:], ']')
		if end < 0 {
			return d, fmt.Errorf("unclosed argument index in %q", s)
		}
		n, err := strconv.Atoi(s[i+1 : i+end])
		if err != nil || n < 1 || n > numArgs {
			return d, fmt.Errorf("argument index %q: there are %d arguments", s[i:i+end+1], numArgs)
		}
		d.index = n
		i += end + 1
	}
	number := func() (int, error) {
		n := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if n = n*10 + int(s[i]-'0'); n > maxWidth {
				return 0, fmt.Errorf("widths and precisions above %d are not allowed", maxWidth)
			}
		}
		return n, nil
	}
	var err error
	if d.width, err = number(); err != nil {
		return d, err
	}
	if i < len(s) && s[i] == '.' {
		i++
		if d.prec, err = number(); err != nil {
			return d, err
		}
	}
	if i >= len(s) {
		return d, fmt.Errorf("a directive without a verb")
	}
	c := s[i]
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return d, fmt.Errorf("verb %q is not allowed (widths from arguments, *, are not either)", c)
	}
	d.verb = c
	d.size = i + 1
	return d, nil
}

// verbBound bounds one verb's output for an argument, width aside.
func verbBound(verb byte, sharp bool, v value) int {
	switch {
	case sharp:
	case verb == 's' && v.k == kindString,
		verb == 'v' && v.k != kindAny:
		return v.n + 1 // %+v of an int adds a sign
	case verb == 'd' && v.k == kindInt:
		return v.n + 1
	}
	// "% #x" of a string: "0xNN " for each byte; errors: the type's name.
	return 6*v.n + 72
}
