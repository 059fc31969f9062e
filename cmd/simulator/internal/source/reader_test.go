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
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// TestReaderIsGentle: the first list is a consistent one (no
// resourceVersion=0, which the watch cache would answer whole), in pages
// of 500, narrowed by the filter; the watch starts from the list's
// resourceVersion; no WatchList stream (sendInitialEvents) is asked for.
func TestReaderIsGentle(t *testing.T) {
	var mu sync.Mutex
	var requests []map[string]string
	watching := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		got := map[string]string{"path": r.URL.Path}
		for _, k := range []string{"limit", "resourceVersion", "continue", "labelSelector", "watch", "sendInitialEvents"} {
			if v, ok := q[k]; ok {
				got[k] = v[0]
			}
		}
		mu.Lock()
		requests = append(requests, got)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if q.Has("sendInitialEvents") {
			// As a server without WatchList: the reflector lists instead.
			http.Error(w, "sendInitialEvents is not supported", http.StatusBadRequest)
			return
		}
		if q.Get("watch") == "true" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			once.Do(func() { close(watching) })
			<-r.Context().Done()
			return
		}
		// Every page is of the list's snapshot, resourceVersion 77.
		list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "77"}}
		if q.Get("continue") == "" {
			list.Continue = "page-2"
			list.Items = []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "a", Labels: map[string]string{"app": "web"}}}}
		} else {
			list.Items = []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "b", Labels: map[string]string{"app": "web"}}}}
		}
		_ = json.NewEncoder(w).Encode(list)
	}))
	defer srv.Close()

	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{Source: &contract.Source{Mode: contract.SourceModeSync, Dir: "/s", Namespaces: []string{"team"}, LabelSelector: "app=web"},
		Inner: fake.NewClientset()})
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan []desired, 1)
	copied := make(chan struct{})
	close(copied)
	ctx, cancel := context.WithCancel(context.Background())
	st := &store{m: m, kind: mirror.KindOf("pods"), namespace: "team", first: first, copied: copied, done: ctx.Done()}
	r := m.reflector(client, mirror.KindOf("pods"), "team", st, cancel)
	var wg sync.WaitGroup
	wg.Go(func() { r.RunWithContext(ctx) })
	listed := <-first
	<-watching
	cancel()
	wg.Wait()

	var names []string
	for _, d := range listed {
		names = append(names, d.obj.GetName())
	}
	if d := cmp.Diff([]string{"a", "b"}, names); d != "" {
		t.Errorf("first list (-want +got):\n%s", d)
	}
	path := "/api/v1/namespaces/team/pods"
	want := []map[string]string{
		{"path": path, "limit": "500", "labelSelector": "app=web"},
		{"path": path, "limit": "500", "continue": "page-2", "labelSelector": "app=web"},
		{"path": path, "resourceVersion": "77", "labelSelector": "app=web", "watch": "true"},
	}
	mu.Lock()
	defer mu.Unlock()
	if d := cmp.Diff(want, requests); d != "" {
		t.Errorf("requests to the source (-want +got):\n%s", d)
	}
}
