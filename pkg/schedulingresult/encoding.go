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

package schedulingresult

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The binary form of a Document: a version, then its parts in order,
// strings as a uvarint length and bytes, counts as uvarints, scores as
// varints. Node names are front-coded (the length shared with the name
// before, then the rest): a snapshot lists nodes by name, and a NodePool's
// names share their pool's prefix.
//
//	version              byte (1)
//	namespace name uid   string ×3
//	summary              string
//	fields               count, then each: name string, kind byte, perNode byte, value string
//	filter verdicts      count, then each: count, then plugin and result strings
//	filter nodes         count, then each: front-coded name, verdict index
//	score plugins        count, then each: string
//	score nodes          count, then each: front-coded name
//	raw, final           varint ×(nodes × plugins) each
//	missing              byte 0, or 1 and a bit per entry (LSB first)
const version = 1

// ErrMalformed is the error of UnmarshalBinary for data that is no
// Document of this version.
var ErrMalformed = errors.New("malformed scheduling result")

// AppendBinary appends d's binary form to b.
func (d *Document) AppendBinary(b []byte) ([]byte, error) {
	if err := d.check(); err != nil {
		return b, err
	}
	b = append(b, version)
	b = appendBytes(b, d.Namespace)
	b = appendBytes(b, d.Name)
	b = appendBytes(b, d.UID)
	b = appendBytes(b, d.Summary)
	b = binary.AppendUvarint(b, uint64(len(d.Fields)))
	for _, f := range d.Fields {
		b = appendBytes(b, f.Name)
		b = append(b, byte(f.Kind), boolByte(f.PerNode))
		b = appendBytes(b, f.Value)
	}
	f := &d.Filter
	b = binary.AppendUvarint(b, uint64(len(f.Verdicts)))
	for _, v := range f.Verdicts {
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, r := range v {
			b = appendBytes(b, r.Plugin)
			b = appendBytes(b, r.Result)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(f.Nodes)))
	prev := ""
	for i, node := range f.Nodes {
		b = appendName(b, prev, node)
		b = binary.AppendUvarint(b, uint64(f.Of[i]))
		prev = node
	}
	s := &d.Scores
	b = binary.AppendUvarint(b, uint64(len(s.Plugins)))
	for _, p := range s.Plugins {
		b = appendBytes(b, p)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Nodes)))
	prev = ""
	for _, node := range s.Nodes {
		b = appendName(b, prev, node)
		prev = node
	}
	for _, v := range s.Raw {
		b = binary.AppendVarint(b, v)
	}
	for _, v := range s.Final {
		b = binary.AppendVarint(b, v)
	}
	if s.Missing == nil {
		return append(b, 0), nil
	}
	b = append(b, 1)
	bits := make([]byte, (len(s.Missing)+7)/8)
	for i, m := range s.Missing {
		if m {
			bits[i/8] |= 1 << (i % 8)
		}
	}
	return append(b, bits...), nil
}

// check: the tables' parts agree, as UnmarshalBinary requires.
func (d *Document) check() error {
	for _, f := range d.Fields {
		if f.Kind >= numKinds {
			return fmt.Errorf("field %s: unknown kind %d", f.Name, f.Kind)
		}
	}
	f := &d.Filter
	if len(f.Of) != len(f.Nodes) {
		return fmt.Errorf("filter: %d verdicts for %d nodes", len(f.Of), len(f.Nodes))
	}
	for _, v := range f.Of {
		if v < 0 || v >= len(f.Verdicts) {
			return fmt.Errorf("filter: verdict %d of %d", v, len(f.Verdicts))
		}
	}
	s := &d.Scores
	n := len(s.Nodes) * len(s.Plugins)
	if len(s.Raw) != n || len(s.Final) != n || s.Missing != nil && len(s.Missing) != n {
		return fmt.Errorf("scores: %d raw, %d final and %d missing for %d nodes × %d plugins",
			len(s.Raw), len(s.Final), len(s.Missing), len(s.Nodes), len(s.Plugins))
	}
	return nil
}

func appendBytes[T string | []byte](b []byte, s T) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendName(b []byte, prev, name string) []byte {
	shared := 0
	for shared < len(prev) && shared < len(name) && prev[shared] == name[shared] {
		shared++
	}
	b = binary.AppendUvarint(b, uint64(shared))
	return appendBytes(b, name[shared:])
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// UnmarshalBinary decodes what AppendBinary wrote. It trusts nothing in
// data: a count larger than what is left fails before anything is
// allocated for it.
func (d *Document) UnmarshalBinary(data []byte) error {
	r := &reader{data: data}
	if v := r.byte(); v != version {
		return fmt.Errorf("%w: version %d, want %d", ErrMalformed, v, version)
	}
	*d = Document{Namespace: r.string(), Name: r.string(), UID: r.string(), Summary: r.bytes()}
	if n := r.count(3); n > 0 {
		d.Fields = make([]Field, n)
		for i := range d.Fields {
			f := &d.Fields[i]
			f.Name, f.Kind, f.PerNode, f.Value = r.string(), Kind(r.byte()), r.byte() == 1, r.bytes()
			if f.Kind >= numKinds {
				r.fail("field %s: kind %d", f.Name, f.Kind)
			}
		}
	}
	f := &d.Filter
	if n := r.count(1); n > 0 {
		f.Verdicts = make([][]PluginResult, n)
		for i := range f.Verdicts {
			v := make([]PluginResult, r.count(2))
			for j := range v {
				v[j] = PluginResult{Plugin: r.string(), Result: r.string()}
			}
			f.Verdicts[i] = v
		}
	}
	if n := r.count(3); n > 0 {
		f.Nodes, f.Of = make([]string, n), make([]int, n)
		prev := ""
		for i := range f.Nodes {
			f.Nodes[i] = r.name(prev)
			prev = f.Nodes[i]
			v := r.uvarint()
			if v >= uint64(len(f.Verdicts)) {
				r.fail("filter: verdict %d of %d", v, len(f.Verdicts))
				break
			}
			f.Of[i] = int(v)
		}
	}
	s := &d.Scores
	if n := r.count(1); n > 0 {
		s.Plugins = make([]string, n)
		for i := range s.Plugins {
			s.Plugins[i] = r.string()
		}
	}
	if n := r.count(2); n > 0 {
		s.Nodes = make([]string, n)
		prev := ""
		for i := range s.Nodes {
			s.Nodes[i] = r.name(prev)
			prev = s.Nodes[i]
		}
	}
	// Two varints of at least a byte per entry.
	entries := len(s.Nodes) * len(s.Plugins)
	if r.err == nil && entries > 0 {
		if len(s.Plugins) > len(r.data) || entries > (len(r.data)-r.pos)/2 {
			r.fail("scores: %d nodes × %d plugins in %d bytes", len(s.Nodes), len(s.Plugins), len(r.data)-r.pos)
		} else {
			s.Raw, s.Final = make([]int64, entries), make([]int64, entries)
			for i := range s.Raw {
				s.Raw[i] = r.varint()
			}
			for i := range s.Final {
				s.Final[i] = r.varint()
			}
		}
	}
	switch r.byte() {
	case 0:
	case 1:
		bits := r.take((entries + 7) / 8)
		if r.err == nil {
			s.Missing = make([]bool, entries)
			for i := range s.Missing {
				s.Missing[i] = bits[i/8]&(1<<(i%8)) != 0
			}
		}
	default:
		r.fail("scores: missing entries")
	}
	if r.err == nil && r.pos != len(r.data) {
		r.fail("%d bytes after the document", len(r.data)-r.pos)
	}
	if r.err != nil {
		*d = Document{}
	}
	return r.err
}

// reader reads data until the first error, then returns zero values.
type reader struct {
	data []byte
	pos  int
	err  error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w at byte %d: %s", ErrMalformed, r.pos, fmt.Sprintf(format, args...))
	}
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.data)-r.pos {
		r.fail("%d bytes past the end", n-(len(r.data)-r.pos))
		return nil
	}
	b := r.data[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) byte() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) uvarint() uint64 { return readVarint(r, binary.Uvarint) }

func (r *reader) varint() int64 { return readVarint(r, binary.Varint) }

// readVarint reads one varint that decode (binary.Uvarint or Varint) takes.
func readVarint[T uint64 | int64](r *reader, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := decode(r.data[r.pos:])
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.pos += n
	return v
}

// count reads a count of elements that take at least size bytes each.
func (r *reader) count(size int) int {
	n := r.uvarint()
	if left := uint64(len(r.data) - r.pos); n > left/uint64(size) {
		r.fail("%d elements in %d bytes", n, left)
		return 0
	}
	return int(n)
}

// bytes reads a string's bytes, copied: the document outlives data.
func (r *reader) bytes() []byte {
	b := r.take(int(min(r.uvarint(), uint64(len(r.data)+1))))
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

func (r *reader) string() string {
	return string(r.bytes())
}

func (r *reader) name(prev string) string {
	shared := r.uvarint()
	if shared > uint64(len(prev)) {
		r.fail("name shares %d bytes of %d", shared, len(prev))
		return ""
	}
	return prev[:shared] + r.string()
}
