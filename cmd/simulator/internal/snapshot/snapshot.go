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

// Package snapshot exports a simulator's scenario (the objects that decide
// scheduling, and the scheduler configuration) and imports it into
// another, in kube-scheduler-simulator's shape extended to every kind the
// source mirror copies, so that a scenario can be saved, shared and
// replayed. The import copies objects in as the mirror does (its
// transforms and its Writer), in the background.
package snapshot

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
)

// ConfigField is the document's scheduler configuration.
const ConfigField = "schedulerConfig"

// field is a list of the document.
type field struct{ name, resource string }

// fields are the document's lists, in the mirror's order: the names of
// kube-scheduler-simulator for the kinds it has (so that its files import,
// and ours import there), camelCase plurals for the others.
var fields = []field{
	{"namespaces", "namespaces"},
	{"priorityClasses", "priorityclasses"},
	{"storageClasses", "storageclasses"},
	{"runtimeClasses", "runtimeclasses"},
	{"deviceClasses", "deviceclasses"},
	{"nodes", "nodes"},
	{"pvs", "persistentvolumes"},
	{"csiNodes", "csinodes"},
	{"resourceSlices", "resourceslices"},
	{"pvcs", "persistentvolumeclaims"},
	{"resourceClaims", "resourceclaims"},
	{"podDisruptionBudgets", "poddisruptionbudgets"},
	{"pods", "pods"},
	{"replicaSets", "replicasets"},
	{"statefulSets", "statefulsets"},
	{"daemonSets", "daemonsets"},
	{"jobs", "jobs"},
	{"deployments", "deployments"},
}

// kindOfField returns the kind of a document's list, nil for another field.
func kindOfField(name string) *mirror.Kind {
	for _, f := range fields {
		if f.name == name {
			return mirror.KindOf(f.resource)
		}
	}
	return nil
}

// Fields are the names of the document's lists.
func Fields() []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		out = append(out, f.name)
	}
	return out
}

// PageSize is the export's list page: a simulator of 50,000 Pods is read
// 500 at a time, never in one list.
const PageSize = 500

// Export writes the scenario of the cluster c serves to w, as a JSON
// document: schedulerConfig (if not nil) and one list per kind. Each list
// is read in pages and written as it is read, so neither the inner
// apiserver nor the simulator holds a whole list. Objects are written as
// the cluster holds them but for their managedFields (half the bytes, and
// an import drops them); the system-* PriorityClasses every apiserver
// makes are left out.
func Export(ctx context.Context, c kubernetes.Interface, schedulerConfig []byte, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.WriteString("{"); err != nil {
		return err
	}
	if len(schedulerConfig) > 0 {
		if _, err := fmt.Fprintf(bw, "%q:%s,", ConfigField, schedulerConfig); err != nil {
			return err
		}
	}
	for i, f := range fields {
		if i > 0 {
			if err := bw.WriteByte(','); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(bw, "%q:[", f.name); err != nil {
			return err
		}
		if err := exportList(ctx, c, mirror.KindOf(f.resource), bw); err != nil {
			return fmt.Errorf("exporting %s: %w", f.resource, err)
		}
		if err := bw.WriteByte(']'); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// exportList writes the objects of k, comma-separated.
func exportList(ctx context.Context, c kubernetes.Interface, k *mirror.Kind, w *bufio.Writer) error {
	rc := k.RESTClient(c)
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return rc.Get().Resource(k.Resource).VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Get()
	})
	p.PageSize = PageSize
	first := true
	return p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		o := obj.(mirror.Object)
		if pc, ok := o.(*schedulingv1.PriorityClass); ok && strings.HasPrefix(pc.Name, "system-") {
			return nil
		}
		o.SetManagedFields(nil)
		data, err := json.Marshal(o)
		if err != nil {
			return err
		}
		if !first {
			if err := w.WriteByte(','); err != nil {
				return err
			}
		}
		first = false
		_, err = w.Write(data)
		return err
	})
}
