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

// Parse compiles one template string.
func Parse(s string) (*template.Template, error) {
	return template.New("").Funcs(funcs).Option("missingkey=error").Parse(s)
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
