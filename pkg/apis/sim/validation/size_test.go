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

package validation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// annotations of n KiB in all.
func annotations(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[fmt.Sprintf("a%d", i)] = strings.Repeat("x", 1000)
	}
	return m
}

func TestObjectSizeLimits(t *testing.T) {
	t.Run("simulator with large annotations", func(t *testing.T) {
		s := validSimulator()
		s.Annotations = annotations(70)
		if diff := cmp.Diff([]string{"FieldValueTooLong metadata"}, errs(ValidateSimulator(s, DefaultOptions()))); diff != "" {
			t.Errorf("errors (-want +got):\n%s", diff)
		}
		s.Annotations = annotations(60)
		if got := errs(ValidateSimulator(s, DefaultOptions())); len(got) > 0 {
			t.Errorf("a simulator under the limit: %v", got)
		}
	})
	t.Run("nodepool with a large template", func(t *testing.T) {
		np := validNodePool()
		np.Spec.Template.Metadata.Annotations = annotations(33)
		if diff := cmp.Diff([]string{"FieldValueTooLong spec"}, errs(ValidateNodePool(np, DefaultOptions()))); diff != "" {
			t.Errorf("errors (-want +got):\n%s", diff)
		}
	})
	t.Run("managedFields do not count", func(t *testing.T) {
		np := validNodePool()
		np.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "sim.x-k8s.io/v1alpha1",
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:` + strings.Repeat("k", 40<<10) + `":{}}}}`)}}
		if got := errs(ValidateNodePool(np, DefaultOptions())); len(got) > 0 {
			t.Errorf("%v", got)
		}
	})
	t.Run("an object stored over the limit may be updated without growing", func(t *testing.T) {
		old := validNodePool()
		old.ResourceVersion = "1"
		old.Spec.Template.Metadata.Annotations = annotations(40)
		same := old.DeepCopy()
		same.Finalizers = nil
		if got := errs(ValidateNodePoolUpdate(same, old, DefaultOptions())); len(got) > 0 {
			t.Errorf("removing a finalizer: %v", got)
		}
		grown := old.DeepCopy()
		grown.Spec.Template.Metadata.Annotations["more"] = "x"
		if diff := cmp.Diff([]string{"FieldValueTooLong spec"}, errs(ValidateNodePoolUpdate(grown, old, DefaultOptions()))); diff != "" {
			t.Errorf("growing it (-want +got):\n%s", diff)
		}
	})
}
