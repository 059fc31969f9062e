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
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The largest objects a user may write, as JSON without managedFields and
// status. Every replica caches every object, and a list answers them all
// at once, so they are far below what a record holds (a host ConfigMap,
// 1 MiB): the rest is room for the server's own bookkeeping (status,
// managedFields, finalizers). A NodePool's template renders Nodes of up to
// sim.MaxNodeBytes; its source needs less.
const (
	MaxSimulatorBytes = 64 << 10
	MaxNodePoolBytes  = 32 << 10
)

// objectSize is the size of an object's metadata (but managedFields) and
// spec as JSON.
func objectSize(meta *metav1.ObjectMeta, spec any) (metaBytes, specBytes int) {
	m := *meta
	m.ManagedFields = nil
	mb, _ := json.Marshal(&m)
	sb, _ := json.Marshal(spec)
	return len(mb), len(sb)
}

// validateSize refuses an object larger than limit. An update is refused
// only if it grows an object already over the limit, so that objects stored
// before the limit can still be updated (and finalized) as they are.
func validateSize(meta *metav1.ObjectMeta, spec any, oldMeta *metav1.ObjectMeta, oldSpec any, limit int) field.ErrorList {
	metaBytes, specBytes := objectSize(meta, spec)
	size := metaBytes + specBytes
	if size <= limit {
		return nil
	}
	if oldMeta != nil {
		if m, s := objectSize(oldMeta, oldSpec); size <= m+s {
			return nil
		}
	}
	path := field.NewPath("spec")
	if metaBytes > specBytes {
		path = field.NewPath("metadata")
	}
	e := field.TooLong(path, "", limit)
	e.Detail = fmt.Sprintf("the object may not be more than %d bytes (as JSON, without managedFields and status); it is %d: metadata %d, spec %d", limit, size, metaBytes, specBytes)
	return field.ErrorList{e}
}
