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

package snapshot

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
)

// InvalidError is a document that cannot be read.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return "the document: " + e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// visitor is what scan calls for the parts of a document.
type visitor struct {
	// wants says whether items of k are decoded; those it does not want
	// are skipped unread, one at a time.
	wants func(k *mirror.Kind) bool
	// item receives each item wanted, typed.
	item func(k *mirror.Kind, obj mirror.Object) error
	// config receives the scheduler configuration, if not nil.
	config func(raw json.RawMessage) error
}

// scan reads a document item by item, never holding more than one: a
// document of 50,000 Pods is read in a few MiB. Fields it does not know are
// skipped; a list may be null.
func scan(r io.Reader, v visitor) error {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return &InvalidError{err}
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return &InvalidError{err}
		}
		name, _ := tok.(string)
		k := kindOfField(name)
		switch {
		case name == ConfigField:
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return &InvalidError{fmt.Errorf("%s: %w", name, err)}
			}
			if v.config != nil {
				if err := v.config(raw); err != nil {
					return err
				}
			}
			continue
		case k == nil:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return &InvalidError{fmt.Errorf("%s: %w", name, err)}
			}
			continue
		}
		if err := scanList(dec, name, k, v); err != nil {
			return err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return &InvalidError{err}
	}
	return nil
}

func scanList(dec *json.Decoder, name string, k *mirror.Kind, v visitor) error {
	tok, err := dec.Token()
	if err != nil {
		return &InvalidError{fmt.Errorf("%s: %w", name, err)}
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return &InvalidError{fmt.Errorf("%s: not a list", name)}
	}
	wanted := v.wants(k)
	for i := 0; dec.More(); i++ {
		if !wanted {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return &InvalidError{fmt.Errorf("%s[%d]: %w", name, i, err)}
			}
			continue
		}
		obj := k.New()
		if err := dec.Decode(obj); err != nil {
			return &InvalidError{fmt.Errorf("%s[%d]: %w", name, i, err)}
		}
		if err := v.item(k, obj); err != nil {
			return err
		}
	}
	if err := expectDelim(dec, ']'); err != nil {
		return &InvalidError{fmt.Errorf("%s: %w", name, err)}
	}
	return nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("got %v, want %q", tok, want)
	}
	return nil
}
