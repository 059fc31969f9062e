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

package bootstrapseed

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/etcdstore"
)

func TestObjects(t *testing.T) {
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GetObjectKind().GroupVersionKind().Kind]++
	}
	// What kube-apiserver's hook needs for a cluster to work at all: a
	// generated file that lost a kind would still decode.
	for _, kind := range []string{"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "PriorityClass"} {
		if kinds[kind] == 0 {
			t.Errorf("no %s in the bootstrap objects (%v)", kind, kinds)
		}
	}
	names := map[string]bool{}
	for _, o := range objs {
		m := o.(metav1.Object)
		names[m.GetName()] = true
	}
	for _, want := range []string{"cluster-admin", "system:kube-scheduler", "system:controller:replicaset-controller", "system:controller:bootstrap-signer",
		"system-node-critical", "system-cluster-critical"} {
		if !names[want] {
			t.Errorf("%s is not in the bootstrap objects", want)
		}
	}
}

// TestEncode: the keys are kube-apiserver's, the values decode (as
// kube-apiserver's storage codec decodes them) to the hooks' objects
// with a UID and creation time each.
func TestEncode(t *testing.T) {
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	kvs, err := Encode(objs, "/simulators/ns/a", now)
	if err != nil {
		t.Fatal(err)
	}
	if len(kvs) != len(objs) {
		t.Fatalf("%d keys for %d objects", len(kvs), len(objs))
	}
	decoder := protobuf.NewSerializer(etcdstore.Scheme(), etcdstore.Scheme())
	uids := map[types.UID]bool{}
	keys := map[string]bool{}
	for i, kv := range kvs {
		if keys[kv.Key] {
			t.Errorf("key %s twice", kv.Key)
		}
		keys[kv.Key] = true
		if !bytes.HasPrefix(kv.Value, []byte("k8s\x00")) {
			t.Errorf("%s: not kube's protobuf encoding", kv.Key)
		}
		got, gvk, err := decoder.Decode(kv.Value, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", kv.Key, err)
		}
		if gv := gvk.GroupVersion(); gv != rbacv1.SchemeGroupVersion && gv != schedulingv1.SchemeGroupVersion {
			t.Errorf("%s: stored as %s", kv.Key, gvk)
		}
		m := got.(metav1.Object)
		if m.GetUID() == "" || uids[m.GetUID()] {
			t.Errorf("%s: UID %q missing or not unique", kv.Key, m.GetUID())
		}
		uids[m.GetUID()] = true
		if !m.GetCreationTimestamp().Time.Equal(now) {
			t.Errorf("%s: created %v, want %v", kv.Key, m.GetCreationTimestamp(), now)
		}
		if m.GetResourceVersion() != "" {
			t.Errorf("%s: resourceVersion %q stored: etcd's revision is the version", kv.Key, m.GetResourceVersion())
		}
		want := objs[i].DeepCopyObject()
		want.(metav1.Object).SetUID(m.GetUID())
		want.(metav1.Object).SetCreationTimestamp(metav1.NewTime(now))
		got.GetObjectKind().SetGroupVersionKind(want.GetObjectKind().GroupVersionKind())
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: decoded object differs (-want +got):\n%s", kv.Key, diff)
		}
		wantKey := map[string]string{
			"ClusterRole": "/simulators/ns/a/clusterroles/" + m.GetName(), "ClusterRoleBinding": "/simulators/ns/a/clusterrolebindings/" + m.GetName(),
			"Role": "/simulators/ns/a/roles/" + m.GetNamespace() + "/" + m.GetName(), "RoleBinding": "/simulators/ns/a/rolebindings/" + m.GetNamespace() + "/" + m.GetName(),
			"PriorityClass": "/simulators/ns/a/priorityclasses/" + m.GetName(),
		}[gvk.Kind]
		if kv.Key != wantKey {
			t.Errorf("%s %s: key %s, want %s", gvk.Kind, m.GetName(), kv.Key, wantKey)
		}
		if (gvk.Kind == "Role" || gvk.Kind == "RoleBinding") && m.GetNamespace() == "" {
			t.Errorf("%s %s has no namespace", gvk.Kind, m.GetName())
		}
	}
	// Another simulator's copy has UIDs of its own.
	again, err := Encode(objs, "/simulators/ns/b", now)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := decoder.Decode(again[0].Value, nil, nil)
	if uids[first.(metav1.Object).GetUID()] || !strings.HasPrefix(again[0].Key, "/simulators/ns/b/") {
		t.Errorf("a second encoding reused a UID or the prefix: %s", again[0].Key)
	}
}

// TestComplete: readiness may leave the hooks out only after a seed that
// wrote every object.
func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want bool
	}{
		{Result{Written: 143, Total: 143}, true},
		{Result{Written: 79, Total: 143}, false}, // a batch was there: a restart on data
		{Result{Written: 0, Total: 143}, false},
		{Result{}, false}, // no seed at all
	} {
		if got := tc.r.Complete(); got != tc.want {
			t.Errorf("%+v.Complete() = %v, want %v", tc.r, got, tc.want)
		}
	}
}
