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
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
)

// TestExportPaginates: every kind is read in pages of 500, each page
// followed to its end, and written as read: managedFields dropped, the
// apiserver's own system-* PriorityClasses left out, one list per field.
func TestExportPaginates(t *testing.T) {
	var mu sync.Mutex
	var requests []string
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		requests = append(requests, r.URL.Path+"?limit="+q.Get("limit")+"&continue="+q.Get("continue"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		var list any
		switch r.URL.Path {
		case "/api/v1/pods":
			l := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}}
			if q.Get("continue") == "" {
				l.Continue = "page-2"
				l.Items = []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "a", ManagedFields: managed}}}
			} else {
				l.Items = []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "b", ManagedFields: managed}}}
			}
			list = l
		case "/apis/scheduling.k8s.io/v1/priorityclasses":
			list = schedulingv1.PriorityClassList{TypeMeta: metav1.TypeMeta{Kind: "PriorityClassList", APIVersion: "scheduling.k8s.io/v1"},
				Items: []schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}}, {ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}}}
		default:
			// An empty list of any kind: the typed client decodes the items
			// it expects, and there are none.
			list = map[string]any{"kind": "List", "apiVersion": "v1", "metadata": map[string]any{}, "items": []any{}}
		}
		_ = json.NewEncoder(w).Encode(list)
	}))
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	if err := Export(t.Context(), client, []byte(`{"kind":"KubeSchedulerConfiguration"}`), &out); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("the export is not a JSON object: %v\n%s", err, out.String())
	}
	var keys []string
	for k := range doc {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	wantKeys := append(Fields(), ConfigField)
	slices.Sort(wantKeys)
	if d := cmp.Diff(wantKeys, keys); d != "" {
		t.Errorf("the export's fields (-want +got):\n%s", d)
	}
	var pods []corev1.Pod
	if err := json.Unmarshal(doc["pods"], &pods); err != nil {
		t.Fatal(err)
	}
	want := []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "b"}}}
	if d := cmp.Diff(want, pods); d != "" {
		t.Errorf("exported pods (-want +got):\n%s", d)
	}
	var pcs []schedulingv1.PriorityClass
	if err := json.Unmarshal(doc["priorityClasses"], &pcs); err != nil {
		t.Fatal(err)
	}
	if len(pcs) != 1 || pcs[0].Name != "high" {
		t.Errorf("exported priority classes %v, want only high (system-* are the apiserver's)", pcs)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(requests) != len(fields)+1 {
		t.Errorf("%d requests, want one per kind and the pods' second page:\n%s", len(requests), strings.Join(requests, "\n"))
	}
	for _, r := range requests {
		if !strings.Contains(r, "limit=500&") {
			t.Errorf("request %s is not a page of 500", r)
		}
	}
	if !slices.Contains(requests, "/api/v1/pods?limit=500&continue=page-2") {
		t.Errorf("the pods' second page was not read:\n%s", strings.Join(requests, "\n"))
	}
}

// TestDocumentFields: the document's lists are named as
// kube-scheduler-simulator names the kinds it has, and cover every kind
// the mirror copies.
func TestDocumentFields(t *testing.T) {
	kss := map[string]string{"pods": "pods", "nodes": "nodes", "pvs": "persistentvolumes", "pvcs": "persistentvolumeclaims",
		"storageClasses": "storageclasses", "priorityClasses": "priorityclasses", "namespaces": "namespaces"}
	for name, resource := range kss {
		if k := kindOfField(name); k == nil || k.Resource != resource {
			t.Errorf("field %q is not %s", name, resource)
		}
	}
	for _, k := range mirror.Kinds {
		found := false
		for _, f := range fields {
			found = found || f.resource == k.Resource
		}
		if !found {
			t.Errorf("the document has no list of %s", k.Resource)
		}
	}
}
