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

package integration

import (
	"context"
	"fmt"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/flowcontrol"
)

// watchers is more than every API Priority and Fairness seat sim-apiserver
// has in these tests (--max-requests-inflight plus
// --max-mutating-requests-inflight, see TestMain).
const watchers = 200

// TestWatchesDoNotHoldSeats checks that watches give their API Priority and
// Fairness seat back once they are set up: with more open watches of a
// non-exempt user than sim-apiserver has seats, the watches all open and a
// plain GET of that user still answers. (A watch that held its seat for its
// life would leave the GET, and the last watches, queued until rejected.)
func TestWatchesDoNotHoldSeats(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "apf")
	const user = "apf-watcher"
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "apf-watcher-"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{simulatorsGVR.Group}, Resources: []string{"simulators"}, Verbs: []string{"get", "list", "watch"}}},
	}
	role, err := c.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Client.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	})
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "apf-watcher"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.Client.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("watched"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	cfg := mustUserConfig(t, user)
	// The client must not be what limits the watches.
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	client := dynamicClient(t, cfg).Resource(simulatorsGVR).Namespace(ns)
	eventually(t, "RBAC to let the user list simulators", func(ctx context.Context) (bool, error) {
		_, err := client.List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})

	// Open every watch at once and wait for each one's first event (the
	// simulator, sent as ADDED): then it is set up on the server.
	opened := make(chan error, watchers)
	for range watchers {
		go func() {
			w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				opened <- err
				return
			}
			t.Cleanup(w.Stop)
			ev, ok := <-w.ResultChan()
			switch {
			case !ok:
				opened <- fmt.Errorf("watch closed before its first event")
			case ev.Type != watch.Added:
				opened <- fmt.Errorf("first event %s: %v", ev.Type, ev.Object)
			default:
				opened <- nil
			}
		}()
	}
	failed := 0
	for range watchers {
		if err := <-opened; err != nil {
			failed++
			if failed <= 3 {
				t.Errorf("watch: %v", err)
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d watches did not open", failed, watchers)
	}

	// With every watch open, a plain GET of the same user answers.
	if _, err := client.Get(ctx, "watched", metav1.GetOptions{}); err != nil {
		t.Errorf("GET with %d open watches: %v", watchers, err)
	}
}
