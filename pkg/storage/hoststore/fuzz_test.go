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
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// FuzzRecordDecode plants a record holding any bytes and reads it through
// the storage: a get or a list may fail (a list fails on a record it cannot
// decode, rather than tell its watchers the object went), but never panics,
// and never serves the object of another name or namespace.
func FuzzRecordDecode(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"x","namespace":"ns"},"spec":{}}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"other","namespace":"kube-system","resourceVersion":"x"},"spec":{"kubeAPIServerPort":-1}}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"NodePool","metadata":{"name":"x"},"spec":{"simulatorName":"x"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`,
		`{"apiVersion":"sim.x-k8s.io/v9","kind":"Simulator"}`,
		`null`, ``, `{not json`, "\x00\xff",
		`{"kind":"Simulator","apiVersion":"sim.x-k8s.io/v1alpha1","metadata":{"deletionTimestamp":"never","generation":-5}}`,
	} {
		f.Add(seed, "5")
	}
	scheme := runtime.NewScheme()
	install.Install(scheme)
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(v1alpha1.SchemeGroupVersion)
	const prefix = "/sim.x-k8s.io/simulators"
	f.Fuzz(func(t *testing.T, data, resourceVersion string) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ref := objectRef{resource: "simulators.sim.x-k8s.io", namespace: "ns", name: "x"}
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: ref.recordName(), Namespace: "sim-system", ResourceVersion: resourceVersion,
				Labels: recordLabels(ref, &metav1.ObjectMeta{})},
			Data: map[string]string{dataKey: data},
		}
		records := NewRecords(fake.NewClientset(cm), "sim-system")
		records.Start(ctx)
		if !cache.WaitForCacheSync(ctx.Done(), records.HasSynced) {
			t.Fatal("the records' cache did not sync")
		}
		s, _, err := records.Decorator(&storagebackend.ConfigForResource{
			Config:        storagebackend.Config{Codec: codec},
			GroupResource: sim.Resource("simulators"),
		}, prefix, nil, func() runtime.Object { return &sim.Simulator{} }, func() runtime.Object { return &sim.SimulatorList{} }, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, rv := range []string{"", "0"} {
			_ = s.Get(ctx, prefix+"/ns/x", storage.GetOptions{ResourceVersion: rv}, &sim.Simulator{})
			list := &sim.SimulatorList{}
			err := s.GetList(ctx, prefix+"/ns", storage.ListOptions{ResourceVersion: rv, Recursive: true, Predicate: storage.Everything}, list)
			if err != nil && !storage.IsCorruptObject(err) {
				t.Errorf("list (resourceVersion %q) with a planted record: %v, want it or a corrupt-object error", rv, err)
			}
			for _, item := range list.Items {
				if item.Namespace != "ns" || item.Name != "x" {
					t.Errorf("list (resourceVersion %q) of namespace ns holds %s/%s", rv, item.Namespace, item.Name)
				}
			}
		}
	})
}
