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

package servingcert

import (
	"bytes"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorfake "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/fake"
)

// TestCABundleNeverGoesBack: two replicas keep the APIService's caBundle
// through three CA rotations, one with the Secret as it is, the other a
// step behind (its watch lags), writing in turns. The caBundle only moves
// forward: after every write it is the newest either has seen, and it is
// updated once per bundle, never back and forth.
func TestCABundleNeverGoesBack(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var bundles [][]byte // each distinct caBundle of 100 days, in order
	var data map[string][]byte
	for day := 0; day <= 100; day++ {
		next, _, err := Next(now.Add(time.Duration(day)*24*time.Hour), data, testPolicy)
		if err != nil {
			t.Fatal(err)
		}
		if data == nil || !bytes.Equal(next[CABundleKey], data[CABundleKey]) {
			bundles = append(bundles, next[CABundleKey])
		}
		data = next
	}
	if len(bundles) < 6 {
		t.Fatalf("%d caBundles in 100 days, want the first and two per CA rotation", len(bundles))
	}

	const name = "v1alpha1.sim.x-k8s.io"
	agg := aggregatorfake.NewSimpleClientset(&apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       apiregistrationv1.APIServiceSpec{InsecureSkipTLSVerify: true},
	})
	replica := &Controller{aggregator: agg, apiService: name}
	holds := func() []byte {
		t.Helper()
		s, err := agg.ApiregistrationV1().APIServices().Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s.Spec.CABundle
	}
	for i := range bundles {
		// The replica that sees the Secret as it is, then the one behind.
		if err := replica.ensureCABundle(t.Context(), bundles[i]); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if err := replica.ensureCABundle(t.Context(), bundles[i-1]); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(holds(), bundles[i]) {
			t.Fatalf("after bundle %d and the lagging replica's %d, the APIService holds an older one", i, i-1)
		}
	}
	updates := 0
	for _, a := range agg.Actions() {
		if a.GetVerb() == "update" {
			updates++
		}
	}
	if updates != len(bundles) {
		t.Errorf("%d updates of the APIService for %d caBundles, want one each", updates, len(bundles))
	}
}

func TestOlderBundle(t *testing.T) {
	data, _, err := Next(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), nil, testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	bundle := data[CABundleKey]
	for _, tc := range []struct {
		name string
		a, b []byte
		want bool
	}{
		{"none is older than a CA", nil, bundle, true},
		{"a CA is not older than none", bundle, nil, false},
		{"a CA is not older than garbage", bundle, []byte("not PEM"), false},
		{"the same bundle", bundle, bundle, false},
	} {
		if got := OlderBundle(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: OlderBundle = %v, want %v", tc.name, got, tc.want)
		}
	}
}
