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

package simulator

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
)

// TestAbandonPurge: a purge that fails is given up only in a terminating
// namespace and only PurgeGiveUpAfter after the simulator's deletion, with
// a Warning Event on the Namespace naming the keys and the etcd; elsewhere
// it is retried however long it fails.
func TestAbandonPurge(t *testing.T) {
	deleted := time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
	now := metav1.NewTime(deleted)
	namespaces := []corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "live"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
		{ObjectMeta: metav1.ObjectMeta{Name: "deleted", DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
		// The phase alone says so too.
		{ObjectMeta: metav1.ObjectMeta{Name: "terminating"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
	}
	purgeErr := errors.New("dial tcp 10.0.0.9:2379: connect: connection refused")

	for _, tc := range []struct {
		name      string
		namespace string
		after     time.Duration
		deleting  bool
		abandoned bool
	}{
		{name: "live namespace, long after", namespace: "live", after: time.Hour, deleting: true},
		{name: "terminating namespace, not yet", namespace: "deleted", after: PurgeGiveUpAfter - time.Second, deleting: true},
		{name: "terminating namespace, after", namespace: "deleted", after: PurgeGiveUpAfter, deleting: true, abandoned: true},
		{name: "terminating phase, after", namespace: "terminating", after: 2 * PurgeGiveUpAfter, deleting: true, abandoned: true},
		{name: "namespace gone from the host", namespace: "unknown", after: time.Hour, deleting: true},
		{name: "simulator not being deleted", namespace: "deleted", after: time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := kubefake.NewClientset()
			for i := range namespaces {
				if _, err := host.CoreV1().Namespaces().Create(t.Context(), &namespaces[i], metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			recorder := record.NewFakeRecorder(10)
			recorder.IncludeObject = true
			c := &Controller{host: host, recorder: recorder, clock: clocktesting.NewFakePassiveClock(deleted.Add(tc.after))}
			s := &v1alpha1.Simulator{
				ObjectMeta: metav1.ObjectMeta{Namespace: tc.namespace, Name: "s", UID: "uid-1"},
				Spec:       v1alpha1.SimulatorSpec{EtcdURL: "http://etcd." + tc.namespace + ":2379"},
			}
			if tc.deleting {
				s.DeletionTimestamp = &now
			}

			if got := c.abandonPurge(t.Context(), s, purgeErr); got != tc.abandoned {
				t.Fatalf("abandoned: %v, want %v", got, tc.abandoned)
			}
			var events []string
			for len(recorder.Events) > 0 {
				events = append(events, <-recorder.Events)
			}
			if !tc.abandoned {
				if len(events) > 0 {
					t.Errorf("Events of a purge still retried: %q", events)
				}
				return
			}
			if len(events) != 1 {
				t.Fatalf("Events: %q, want one", events)
			}
			for _, want := range []string{"Warning PurgeAbandoned", "keys under " + backing.EtcdPrefix(s), "in " + s.Spec.EtcdURL, purgeErr.Error(), "kind=Namespace"} {
				if !strings.Contains(events[0], want) {
					t.Errorf("the Event %q does not say %q", events[0], want)
				}
			}
		})
	}
}
