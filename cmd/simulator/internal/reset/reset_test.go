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

package reset

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"
)

func TestKeep(t *testing.T) {
	core := func(r string) schema.GroupResource { return schema.GroupResource{Resource: r} }
	rbac := func(r string) schema.GroupResource {
		return schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: r}
	}
	tests := []struct {
		gr          schema.GroupResource
		namespace   string
		name        string
		labels      map[string]string
		want        bool
		annotations map[string]string
	}{
		{core("services"), "default", "kubernetes", nil, true, nil},
		{core("services"), "default", "web", nil, false, nil},
		{core("services"), "team-a", "kubernetes", nil, false, nil},
		{core("endpoints"), "default", "kubernetes", nil, true, nil},
		{schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, "default", "kubernetes", nil, true, nil},
		{core("configmaps"), "default", "kube-root-ca.crt", nil, true, nil},
		{core("configmaps"), "kube-system", "extension-apiserver-authentication", nil, true, nil},
		{core("configmaps"), "kube-system", "kube-apiserver-legacy-service-account-token-tracking", nil, true, nil},
		{core("configmaps"), "kube-system", "mine", nil, false, nil},
		{core("configmaps"), "default", "extension-apiserver-authentication", nil, false, nil},
		{schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "kube-system", "apiserver-abc", nil, true, nil},
		{schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "kube-node-lease", "node-1", nil, false, nil},
		{schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"}, "kube-system", "system:controller:bootstrap-signer", map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}, true, nil},
		{schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"}, "kube-system", "mine", nil, false, nil},
		{schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, "", "system-node-critical", nil, true, nil},
		{schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, "", "high", nil, false, nil},
		{core("nodes"), "", "node-1", nil, false, nil},
		{core("pods"), "kube-system", "anything", nil, false, nil},
		{rbac("clusterroles"), "", "admin", map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}, true, nil},
		{rbac("clusterroles"), "", "system:kube-scheduler", nil, true, nil},
		{rbac("clusterroles"), "", "mine", nil, false, nil},
		{rbac("clusterrolebindings"), "", "mine", nil, false, nil},
		{schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}, "", "v1.apps", map[string]string{"kube-aggregator.kubernetes.io/automanaged": "onstart"}, true, nil},
		{schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}, "", "v1.metrics.example.com", nil, false, nil},
		{schema.GroupResource{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}, "", "global-default", nil, true, map[string]string{"apf.kubernetes.io/autoupdate-spec": "true"}},
		{schema.GroupResource{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}, "", "mine", nil, false, nil},
		{schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, "", "widgets.example.com", nil, false, nil},
		{schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}, "", "deny-all", nil, false, nil},
	}
	for _, tc := range tests {
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: tc.namespace, Name: tc.name, Labels: tc.labels, Annotations: tc.annotations}}
		if got := keep(tc.gr, obj); got != tc.want {
			t.Errorf("keep(%s, %s/%s, %v) = %v, want %v", tc.gr, tc.namespace, tc.name, tc.labels, got, tc.want)
		}
	}
}

type fakeDiscovery []*metav1.APIResourceList

func (f fakeDiscovery) ServerPreferredResources() ([]*metav1.APIResourceList, error) { return f, nil }

var allVerbs = metav1.Verbs{"list", "get", "delete", "deletecollection"}

func meta(gv schema.GroupVersion, kind, namespace, name string, labels map[string]string, finalizers ...string) runtime.Object {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: gv.String(), Kind: kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels, Finalizers: finalizers},
	}
}

// TestResetDeletesUserObjectsOnly checks the requests Reset makes against
// fakes; the process test in test/simulator checks it against a real
// kube-apiserver.
func TestResetDeletesUserObjectsOnly(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	v1 := schema.GroupVersion{Version: "v1"}
	coord := schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}
	sched := schema.GroupVersion{Group: "scheduling.k8s.io", Version: "v1"}
	widgets := schema.GroupVersion{Group: "example.com", Version: "v1"}
	disco := fakeDiscovery{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "services", Namespaced: true, Verbs: metav1.Verbs{"list", "delete"}},
			{Name: "configmaps", Namespaced: true, Verbs: allVerbs},
			{Name: "nodes", Verbs: allVerbs},
			{Name: "nodes/status", Verbs: metav1.Verbs{"get", "patch"}},
			{Name: "namespaces", Verbs: allVerbs},
			{Name: "componentstatuses", Verbs: metav1.Verbs{"list", "get"}},
		}},
		{GroupVersion: coord.String(), APIResources: []metav1.APIResource{{Name: "leases", Namespaced: true, Verbs: allVerbs}}},
		{GroupVersion: sched.String(), APIResources: []metav1.APIResource{{Name: "priorityclasses", Verbs: allVerbs}}},
		{GroupVersion: widgets.String(), APIResources: []metav1.APIResource{{Name: "widgets", Namespaced: true, Verbs: allVerbs}}},
	}
	scheme := metadatafake.NewTestScheme()
	metav1.AddMetaToScheme(scheme)
	md := metadatafake.NewSimpleMetadataClient(scheme,
		meta(v1, "Service", "default", "kubernetes", nil),
		meta(v1, "Service", "default", "web", nil),
		meta(v1, "ConfigMap", "default", "kube-root-ca.crt", nil),
		meta(v1, "ConfigMap", "kube-system", "extension-apiserver-authentication", nil),
		meta(v1, "ConfigMap", "kube-system", "mine", nil, "example.com/hold"),
		meta(v1, "ConfigMap", "team-a", "one", nil),
		meta(v1, "ConfigMap", "team-a", "two", nil),
		meta(v1, "Node", "", "node-1", nil),
		meta(v1, "Node", "", "node-2", nil),
		meta(coord, "Lease", "kube-system", "apiserver-x", nil),
		meta(coord, "Lease", "kube-node-lease", "node-1", nil),
		meta(sched, "PriorityClass", "", "system-node-critical", nil),
		meta(sched, "PriorityClass", "", "high", nil),
		meta(widgets, "Widget", "default", "w0", nil),
		meta(widgets, "Widget", "team-a", "w1", nil),
	)
	client := kubefake.NewClientset(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}}},
	)

	r := &Resetter{Discovery: disco, Metadata: md, Client: client}
	res, err := r.Reset(ctx)
	if err != nil {
		t.Fatal(err)
	}

	var got []string
	for _, a := range md.Actions() {
		switch a.GetVerb() {
		case "delete":
			got = append(got, "delete "+a.GetResource().Resource+" "+a.GetNamespace()+"/"+a.(clienttesting.DeleteAction).GetName())
		case "delete-collection":
			got = append(got, "deletecollection "+a.GetResource().Resource+" "+a.GetNamespace())
		case "patch":
			p := a.(clienttesting.PatchAction)
			got = append(got, "patch "+a.GetResource().Resource+" "+a.GetNamespace()+"/"+p.GetName()+" "+string(p.GetPatch()))
		}
	}
	sort.Strings(got)
	want := []string{
		"delete configmaps kube-system/mine",
		"delete priorityclasses /high",
		"delete services default/web",
		"deletecollection configmaps team-a",
		"deletecollection leases kube-node-lease",
		"deletecollection nodes ",
		"deletecollection widgets team-a",
		`patch configmaps kube-system/mine {"metadata":{"finalizers":null}}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	// The fake removes a deleted namespace at once: finalizing it is left
	// to the process test.
	var nsActions []string
	for _, a := range client.Actions() {
		if a.GetVerb() != "list" && a.GetVerb() != "get" {
			nsActions = append(nsActions, a.GetVerb()+" "+a.GetResource().Resource+"/"+a.GetSubresource())
		}
	}
	if diff := cmp.Diff([]string{"delete namespaces/"}, nsActions); diff != "" {
		t.Errorf("namespace requests (-want +got):\n%s", diff)
	}
	wantCounts := map[string]int{"configmaps": 3, "leases.coordination.k8s.io": 1, "priorityclasses.scheduling.k8s.io": 1,
		"services": 1, "nodes": 2, "widgets.example.com": 1, "namespaces": 1}
	if diff := cmp.Diff(wantCounts, res.Deleted); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	// A kind of no built-in group in a system namespace is kept (its CRD,
	// when there is one, goes, and its objects with it).
	wantKept := map[string]int{"configmaps": 2, "leases.coordination.k8s.io": 1, "priorityclasses.scheduling.k8s.io": 1, "services": 1, "widgets.example.com": 1}
	if diff := cmp.Diff(wantKept, res.Kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
}
