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

package source

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// fakeSource serves the core group alone: namespaces and nodes answer
// 403 (the credentials of a namespace's user), pods podsStatus (200: one
// bound Pod).
func fakeSource(t *testing.T, podsStatus int) *rest.Config {
	t.Helper()
	status := func(w http.ResponseWriter, err *apierrors.StatusError) {
		s := err.ErrStatus
		s.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		w.WriteHeader(int(s.Code))
		_ = json.NewEncoder(w).Encode(s)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1":
			_ = json.NewEncoder(w).Encode(metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "v1",
				APIResources: []metav1.APIResource{{Name: "namespaces", Kind: "Namespace"}, {Name: "nodes", Kind: "Node"}, {Name: "pods", Namespaced: true, Kind: "Pod"}}})
		case strings.HasPrefix(r.URL.Path, "/apis/"):
			status(w, apierrors.NewNotFound(metav1.SchemeGroupVersion.WithResource("groups").GroupResource(), r.URL.Path))
		case r.URL.Path == "/api/v1/namespaces" || r.URL.Path == "/api/v1/nodes":
			resource := strings.TrimPrefix(r.URL.Path, "/api/v1/")
			status(w, apierrors.NewForbidden(corev1.Resource(resource), "", errors.New(`User "team-user" cannot list resource "`+resource+`" at the cluster scope`)))
		case r.URL.Path == "/api/v1/pods" && podsStatus == http.StatusUnauthorized:
			status(w, apierrors.NewUnauthorized("Unauthorized"))
		case r.URL.Path == "/api/v1/pods" && r.URL.Query().Get("watch") == "true":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case r.URL.Path == "/api/v1/pods":
			_ = json.NewEncoder(w).Encode(corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "5"},
				Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web", ResourceVersion: "5"}, Spec: corev1.PodSpec{NodeName: "n1"}}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL}
}

// TestForbiddenKindsAreSkipped: a kind the source forbids listing (403) is
// skipped and said so, and the rest is copied; a source that refuses the
// credentials (401) fails the mirror, in the source's words.
func TestForbiddenKindsAreSkipped(t *testing.T) {
	t.Run("403: skipped", func(t *testing.T) {
		cfg := fakeSource(t, http.StatusOK)
		inner := fake.NewClientset()
		m, err := New(Config{Source: &contract.Source{Mode: contract.SourceModeOnce, Dir: "/s"}, Inner: inner,
			SourceConfig: func() (*rest.Config, error) { return cfg, nil }})
		if err != nil {
			t.Fatal(err)
		}
		// Once: Run returns when the copy is whole. The deadline is only
		// against a copy that waits forever for the forbidden kinds.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		if err := m.Run(ctx); err != nil {
			t.Fatal(err)
		}
		st := m.Status()
		if st.Phase != contract.SourceSynced {
			t.Errorf("phase %s (%s), want Synced", st.Phase, st.Message)
		}
		if d := cmp.Diff([]string{"namespaces", "nodes"}, st.Skipped); d != "" {
			t.Errorf("skipped (-want +got):\n%s", d)
		}
		for _, want := range []string{"namespaces, nodes", `cannot list resource "namespaces"`} {
			if !strings.Contains(st.Message, want) {
				t.Errorf("message %q does not say %q", st.Message, want)
			}
		}
		if _, err := inner.CoreV1().Pods("team").Get(t.Context(), "web", metav1.GetOptions{}); err != nil {
			t.Errorf("the pod the source lets read: %v", err)
		}
	})

	t.Run("401: failed", func(t *testing.T) {
		cfg := fakeSource(t, http.StatusUnauthorized)
		m, err := New(Config{Source: &contract.Source{Mode: contract.SourceModeOnce, Dir: "/s"}, Inner: fake.NewClientset(),
			SourceConfig: func() (*rest.Config, error) { return cfg, nil }})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Go(func() { _ = m.Run(ctx) })
		defer func() {
			cancel()
			wg.Wait()
		}()
		var st contract.SourceStatus
		err = wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			st = m.Status()
			return st.Phase == contract.SourceFailed, nil
		})
		if err != nil {
			t.Fatalf("status %+v, want Failed", st)
		}
		if st.Message != "Unauthorized" {
			t.Errorf("message %q, want the source's Unauthorized", st.Message)
		}
	})
}
