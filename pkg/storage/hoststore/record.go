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

// scope is what a storage key names: all objects, a namespace, or one object.
type scope struct {
	namespace string
	name      string
}

// hostSelector is the label selector of a host LIST or WATCH of the records
// in scope that match sel. It reports false when sel cannot be pushed to the
// host (it names reserved keys); the caller then filters in-process only.
func hostSelector(resource string, s scope, sel labels.Selector) (string, bool) {
	base := labels.Set{LabelResource: resource}
	if s.namespace != "" {
		base[LabelNamespace] = s.namespace
	}
	if s.name != "" {
		base[LabelName] = s.name
	}
	out := labels.SelectorFromSet(base)
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

// keyFor parses a storage key (prefix/ns/name, prefix/ns or prefix) into a scope.
func keyFor(prefix, key string, namespaced, recursive bool) (scope, error) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return scope{}, fmt.Errorf("key %q is not under %q", key, prefix)
	}
	rest = strings.Trim(rest, "/")
	var parts []string
	if rest != "" {
		parts = strings.Split(rest, "/")
	}
	switch {
	case namespaced && len(parts) == 2 && !recursive:
		return scope{namespace: parts[0], name: parts[1]}, nil
	case namespaced && len(parts) == 1 && recursive:
		return scope{namespace: parts[0]}, nil
	case !namespaced && len(parts) == 1 && !recursive:
		return scope{name: parts[0]}, nil
	case len(parts) == 0 && recursive:
		return scope{}, nil
	}
	return scope{}, fmt.Errorf("key %q (recursive=%v) names neither an object nor a collection", key, recursive)
}

// isRecord says whether a ConfigMap is a record of resource (and not some
// other ConfigMap that happens to be in the namespace).
func isRecord(cm *corev1.ConfigMap, resource string) bool {
	return cm.Labels[LabelResource] == resource
}

// checkIdentity makes a record garbage unless it holds the very object its
// labels and name say: whoever can write a ConfigMap in the records'
// namespace could otherwise plant one, listed under one namespace, that
// the reconciler reads as an object of another.
func checkIdentity(cm *corev1.ConfigMap, resource string, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	labelled := objectRef{resource: cm.Labels[LabelResource], namespace: cm.Labels[LabelNamespace], name: cm.Labels[LabelName]}
	held := objectRef{resource: resource, namespace: m.GetNamespace(), name: m.GetName()}
	if labelled != held || cm.Name != held.recordName() {
		return fmt.Errorf("record %s is labelled %s but holds %s", cm.Name, labelled, held)
	}
	return nil
}
