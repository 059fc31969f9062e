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

package simulator_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// scenario is what an export/import must carry over: objects by name, and
// each Pod's node.
type scenario struct {
	Nodes, Namespaces, PriorityClasses []string
	Pods                               map[string]string
	UIDs                               map[string]string
}

func readScenario(t *testing.T, c kubernetes.Interface) scenario {
	t.Helper()
	ctx := framework.TimeoutContext(t, time.Minute)
	s := scenario{Pods: map[string]string{}, UIDs: map[string]string{}}
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		s.Nodes = append(s.Nodes, n.Name)
	}
	nss, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nss.Items {
		s.Namespaces = append(s.Namespaces, n.Name)
	}
	pcs, err := c.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pcs.Items {
		s.PriorityClasses = append(s.PriorityClasses, p.Name)
	}
	pods, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		s.Pods[p.Namespace+"/"+p.Name] = p.Spec.NodeName
		s.UIDs[p.Namespace+"/"+p.Name] = string(p.UID)
	}
	return s
}

// TestExportImport saves a scenario from one simulator and replays it into
// a fresh one: the same objects, bound Pods on the same nodes, new UIDs.
func TestExportImport(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	src := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/export/uid-1")
	dst := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/import/uid-2")
	src.WaitReady(t, 2*time.Minute)
	dst.WaitReady(t, 2*time.Minute)
	c := src.Client(t)
	ctx := framework.TimeoutContext(t, 5*time.Minute)

	createNodes(t, c, "node", 3, true)
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*corev1.Pod{cpuPod("bound", "1"), cpuPod("pending", "100")} {
		p.Namespace = "team"
		p.Spec.PriorityClassName = "high"
		createWithPriority(t, c, p)
	}
	framework.WaitUntil(t, time.Minute, "team/bound to be bound", func() (bool, error) {
		p, err := c.CoreV1().Pods("team").Get(ctx, "bound", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", nil
	})
	want := readScenario(t, c)

	status, exported := src.Do(t, http.MethodGet, "/api/v1/export", "")
	if status != http.StatusOK {
		t.Fatalf("GET /api/v1/export = %d %s", status, exported)
	}
	var shape map[string]json.RawMessage
	if err := json.Unmarshal([]byte(exported), &shape); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pods", "nodes", "pvs", "pvcs", "storageClasses", "priorityClasses", "schedulerConfig", "namespaces"} {
		if _, ok := shape[k]; !ok {
			t.Errorf("the export has no %q", k)
		}
	}
	if status, body := dst.Do(t, http.MethodPost, "/api/v1/import", exported); status != http.StatusOK {
		t.Fatalf("POST /api/v1/import = %d %s", status, body)
	}
	got := readScenario(t, dst.Client(t))
	for k, uid := range got.UIDs {
		if uid == want.UIDs[k] {
			t.Errorf("pod %s kept its UID %s", k, uid)
		}
	}
	want.UIDs, got.UIDs = nil, nil
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("imported scenario (-exported +imported):\n%s", d)
	}
}
