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

package hoststore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestKeyFor(t *testing.T) {
	tests := []struct {
		name      string
		key       string
		recursive bool
		want      scope
		wantErr   string
	}{
		{name: "object", key: "/sim/sims/ns/a", want: scope{namespace: "ns", name: "a", object: true}},
		{name: "object without namespace", key: "/sim/sims/a", want: scope{name: "a", object: true}},
		{name: "namespace", key: "/sim/sims/ns", recursive: true, want: scope{namespace: "ns"}},
		{name: "namespace with slash", key: "/sim/sims/ns/", recursive: true, want: scope{namespace: "ns"}},
		{name: "all", key: "/sim/sims", recursive: true, want: scope{}},
		{name: "children of an object", key: "/sim/sims/ns/a", recursive: true, want: scope{none: true}},
		{name: "too deep", key: "/sim/sims/ns/a/b", want: scope{none: true}},
		{name: "other prefix", key: "/sim/simsx/ns/a", wantErr: "lacks resource prefix"},
		{name: "prefix alone", key: "/sim/sims", wantErr: "lacks resource prefix"},
		{name: "dot dot", key: "/sim/sims/../a", wantErr: "invalid key"},
		{name: "empty", key: "", wantErr: "empty key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := keyFor("/sim/sims", tt.key, true, tt.recursive)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("keyFor(%q): %v, want an error with %q", tt.key, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(scope{})); diff != "" {
				t.Errorf("keyFor(%q) (-want +got):\n%s", tt.key, diff)
			}
		})
	}
}

// TestObjectKeyOrder checks that record keys order objects as etcd orders
// their keys: by the bytes of namespace/name, so "a-b/x" before "a/x".
func TestObjectKeyOrder(t *testing.T) {
	record := func(ns, name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{LabelNamespace: ns, LabelName: name}}}
	}
	keys := []string{
		objectKey("/p", record("a-b", "x")),
		objectKey("/p", record("a", "x")),
		objectKey("/p", record("a", "y")),
		objectKey("/p", record("b", "a")),
	}
	want := []string{"/p/a-b/x", "/p/a/x", "/p/a/y", "/p/b/a"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	for i := 1; i < len(keys); i++ {
		if keys[i-1] >= keys[i] {
			t.Errorf("%q does not sort before %q", keys[i-1], keys[i])
		}
	}
}
