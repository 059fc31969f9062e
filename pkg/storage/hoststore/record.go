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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/storage"
)

// Labels of a record ConfigMap. The domain is reserved: an object's own
// labels in it are not copied onto its record, so they cannot forge one.
const (
	reservedDomain = "records.sim.x-k8s.io"
	// LabelResource marks a ConfigMap as a record of one resource.
	LabelResource = reservedDomain + "/resource"
	// LabelNamespace carries the object's namespace.
	LabelNamespace = reservedDomain + "/namespace"
	// LabelName carries the object's name.
	LabelName = reservedDomain + "/name"
	// dataKey holds the serialized object.
	dataKey = "object"
)

// objectRef names one object of one resource.
type objectRef struct {
	resource  string
	namespace string
	name      string
}

// recordName is the ConfigMap name of an object: a hash, so any object name
// fits and a record's name says nothing a reader of ConfigMaps could use.
func (r objectRef) recordName() string {
	sum := sha256.Sum256([]byte(r.resource + "/" + r.namespace + "/" + r.name))
	return "rec-" + hex.EncodeToString(sum[:16])
}

func (r objectRef) String() string {
	if r.namespace == "" {
		return r.resource + " " + r.name
	}
	return r.resource + " " + r.namespace + "/" + r.name
}

// isReserved says whether a label key belongs to the records' own labels.
func isReserved(key string) bool {
	return strings.HasPrefix(key, reservedDomain+"/")
}

// recordLabels are the labels of an object's record: its own labels, so the
// host selects by them, plus the record labels.
func recordLabels(ref objectRef, obj metav1.Object) map[string]string {
	out := make(map[string]string, len(obj.GetLabels())+3)
	for k, v := range obj.GetLabels() {
		if !isReserved(k) {
			out[k] = v
		}
	}
	out[LabelResource] = ref.resource
	out[LabelName] = ref.name
	if ref.namespace != "" {
		out[LabelNamespace] = ref.namespace
	}
	return out
}

// scope is what a storage key names: all objects, a namespace, or one
// object. none marks a key under the prefix that no record can be under
// (e.g. children of an object): reads find nothing there.
type scope struct {
	namespace string
	name      string
	// object says the key names one object (namespace may be empty).
	object bool
	none   bool
}

// hostSelector is the label selector of a host LIST or WATCH of the records
// in scope that match sel. It reports false when sel cannot be pushed to the
// host (it names reserved keys); the caller then filters in-process only.
func hostSelector(resource string, s scope, sel labels.Selector) (string, bool) {
	base := labels.Set{LabelResource: resource}
	if s.namespace != "" {
		base[LabelNamespace] = s.namespace
	}
	if s.object {
		base[LabelName] = s.name
	}
	out := labels.SelectorFromSet(base)
	if s.none {
		// Contradicts the resource label: the host selects nothing.
		r, _ := labels.NewRequirement(LabelResource, selection.NotIn, []string{resource})
		out = out.Add(*r)
	}
	if sel == nil || sel.Empty() {
		return out.String(), true
	}
	reqs, selectable := sel.Requirements()
	if !selectable {
		return out.String(), false
	}
	for _, r := range reqs {
		if isReserved(r.Key()) {
			return out.String(), false
		}
	}
	return out.Add(reqs...).String(), true
}

// keyFor parses a storage key into a scope: prefix/ns/name or prefix/name
// (an object), prefix/ns or prefix with recursive (a collection). Keys are
// checked as etcd3 checks them, with the same errors.
func keyFor(prefix, key string, namespaced, recursive bool) (scope, error) {
	prefix = strings.TrimSuffix(prefix, "/") + "/"
	k, err := storage.PrepareKey(prefix, key, recursive)
	if err != nil {
		return scope{}, err
	}
	rest := strings.TrimPrefix(k, prefix)
	if recursive {
		rest = strings.TrimSuffix(rest, "/")
		switch {
		case rest == "":
			return scope{}, nil
		case namespaced && !strings.Contains(rest, "/"):
			return scope{namespace: rest}, nil
		}
		return scope{none: true}, nil
	}
	parts := strings.Split(rest, "/")
	switch len(parts) {
	case 1:
		return scope{name: parts[0], object: true}, nil
	case 2:
		return scope{namespace: parts[0], name: parts[1], object: true}, nil
	}
	return scope{none: true}, nil
}

// key is the storage key of the object ref names, under prefix.
func (r objectRef) key(prefix string) string {
	prefix = strings.TrimSuffix(prefix, "/") + "/"
	if r.namespace != "" {
		return prefix + r.namespace + "/" + r.name
	}
	return prefix + r.name
}

// objectKey is the storage key of the object a record holds: lists are in
// the order of these keys, as etcd's are.
func objectKey(prefix string, cm *corev1.ConfigMap) string {
	return labelledRef(cm).key(prefix)
}

// isRecord says whether a ConfigMap is a record of resource (and not some
// other ConfigMap that happens to be in the namespace).
func isRecord(cm *corev1.ConfigMap, resource string) bool {
	return cm.Labels[LabelResource] == resource
}

// labelledRef is the object a record's labels say it holds.
func labelledRef(cm *corev1.ConfigMap) objectRef {
	return objectRef{resource: cm.Labels[LabelResource], namespace: cm.Labels[LabelNamespace], name: cm.Labels[LabelName]}
}

// labelsSay says whether a record's own labels name ref: a record whose
// labels were edited by hand is still found by its name, and repaired.
func labelsSay(cm *corev1.ConfigMap, ref objectRef) bool {
	return labelledRef(cm) == ref
}

// checkIdentity makes a record garbage unless it holds the very object
// want, and is named for it: whoever can write a ConfigMap in the records'
// namespace could otherwise plant one, listed under one namespace, that
// the reconciler reads as an object of another. want is what the record
// was found as: by its labels (lists, watches) or by its name (a key).
func checkIdentity(cm *corev1.ConfigMap, want objectRef, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	held := objectRef{resource: want.resource, namespace: m.GetNamespace(), name: m.GetName()}
	if held != want || cm.Name != held.recordName() {
		return fmt.Errorf("record %s is labelled %s but holds %s", cm.Name, labelledRef(cm), held)
	}
	return nil
}
