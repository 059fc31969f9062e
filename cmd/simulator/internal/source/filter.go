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

package source

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// Filter is what of the source the mirror reads: namespaced objects only
// in Namespaces (if any) and matching Selector (if any), cluster-scoped
// objects all, but the Namespaces themselves, which follow Namespaces.
type Filter struct {
	Namespaces []string
	Selector   labels.Selector
}

// NewFilter reads the source's filter.
func NewFilter(s *contract.Source) (Filter, error) {
	f := Filter{Namespaces: s.Namespaces, Selector: labels.Everything()}
	if s.LabelSelector != "" {
		sel, err := labels.Parse(s.LabelSelector)
		if err != nil {
			return Filter{}, fmt.Errorf("%s: labelSelector %q: %w", contract.EnvSource, s.LabelSelector, err)
		}
		f.Selector = sel
	}
	return f, nil
}

// Scopes are the namespaces a kind is listed in: each filtered namespace
// for namespaced kinds (so that the source sends only those, and a user
// with rights in those namespaces alone can be read), else all ("").
func (f Filter) Scopes(k *mirror.Kind) []string {
	if k.Namespaced && len(f.Namespaces) > 0 {
		return f.Namespaces
	}
	return []string{metav1.NamespaceAll}
}

// ListOptions narrows a list or watch of k as the source can.
func (f Filter) ListOptions(k *mirror.Kind, o *metav1.ListOptions) {
	if k.Namespaced && !f.Selector.Empty() {
		o.LabelSelector = f.Selector.String()
	}
}

// Keep says whether an object of k is mirrored. The lists are narrowed
// already; this holds for the Namespaces, which are cluster-scoped and
// listed whole, and for what a source sends that it was not asked for.
func (f Filter) Keep(k *mirror.Kind, obj metav1.Object) bool {
	if k.Resource == "namespaces" {
		return len(f.Namespaces) == 0 || slices.Contains(f.Namespaces, obj.GetName())
	}
	if !k.Namespaced {
		return true
	}
	if len(f.Namespaces) > 0 && !slices.Contains(f.Namespaces, obj.GetNamespace()) {
		return false
	}
	return f.Selector.Matches(labels.Set(obj.GetLabels()))
}
