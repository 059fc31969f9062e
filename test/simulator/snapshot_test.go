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
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// scenarioKinds are the kinds an export carries, as the scenario compares
// them.
var scenarioKinds = []schema.GroupVersionResource{
	{Version: "v1", Resource: "namespaces"},
	{Version: "v1", Resource: "nodes"},
	{Version: "v1", Resource: "persistentvolumes"},
	{Version: "v1", Resource: "persistentvolumeclaims"},
	{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"},
	{Group: "storage.k8s.io", Version: "v1", Resource: "csinodes"},
	{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"},
	{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
	{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses"},
	{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"},
	{Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses"},
	{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"},
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Group: "apps", Version: "v1", Resource: "replicasets"},
	{Group: "apps", Version: "v1", Resource: "statefulsets"},
	{Group: "apps", Version: "v1", Resource: "daemonsets"},
	{Group: "batch", Version: "v1", Resource: "jobs"},
}

// scenario is what an export/import must carry over: objects by kind and
// name, and each Pod's node.
type scenario struct {
	Objects map[string][]string
	Pods    map[string]string
	// UIDs are the Pods' UIDs, compared apart (ignoreUIDs).
	UIDs map[string]string
}

var ignoreUIDs = cmpopts.IgnoreFields(scenario{}, "UIDs")

func readScenario(t *testing.T, sim *framework.StandaloneSimulator) scenario {
	t.Helper()
	ctx := framework.TimeoutContext(t, time.Minute)
	mc, err := metadata.NewForConfig(sim.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := scenario{Objects: map[string][]string{}, Pods: map[string]string{}, UIDs: map[string]string{}}
	for _, gvr := range scenarioKinds {
		list, err := mc.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing %s: %v", gvr.Resource, err)
		}
		for _, o := range list.Items {
			s.Objects[gvr.Resource] = append(s.Objects[gvr.Resource], o.Namespace+"/"+o.Name)
		}
		slices.Sort(s.Objects[gvr.Resource])
	}
	pods, err := sim.Client(t).CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		s.Pods[p.Namespace+"/"+p.Name] = p.Spec.NodeName
		s.UIDs[p.Namespace+"/"+p.Name] = string(p.UID)
	}
	return s
}

// watchPodsMade watches sim's Pods from now on, resuming a watch that the
// server closes (it closes a slow watcher's); the function it returns
// lists the Pods added so far, as namespace/name.
func watchPodsMade(t *testing.T, sim *framework.StandaloneSimulator) func() []string {
	t.Helper()
	ctx := framework.TimeoutContext(t, 10*time.Minute)
	c := sim.Client(t)
	list, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return c.CoreV1().Pods("").Watch(ctx, opts)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	var mu sync.Mutex
	var added []string
	var ended string
	go func() {
		defer func() {
			mu.Lock()
			defer mu.Unlock()
			if ended == "" && ctx.Err() == nil {
				ended = "the watch ended"
			}
		}()
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				mu.Lock()
				ended = fmt.Sprintf("the watch failed: %v", ev.Object)
				mu.Unlock()
				return
			}
			if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Added {
				mu.Lock()
				added = append(added, p.Namespace+"/"+p.Name)
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if ended != "" {
			t.Fatalf("watching the Pods made: %s", ended)
		}
		return slices.Clone(added)
	}
}

// waitWorkloads waits for the workload controllers to have counted their
// Pods: after an import, they adopt the Pods imported before them, and
// would make more if they did not.
func waitWorkloads(t *testing.T, c kubernetes.Interface) {
	t.Helper()
	ctx := t.Context()
	framework.WaitUntil(t, 2*time.Minute, "the workloads to count their pods", func() (bool, error) {
		d, err := c.AppsV1().Deployments("team").Get(ctx, "web", metav1.GetOptions{})
		if err != nil || d.Status.ObservedGeneration < d.Generation || d.Status.Replicas != 2 {
			return false, nil
		}
		ds, err := c.AppsV1().DaemonSets("team").Get(ctx, "agent", metav1.GetOptions{})
		if err != nil || ds.Status.DesiredNumberScheduled != 3 || ds.Status.CurrentNumberScheduled != 3 {
			return false, nil
		}
		ss, err := c.AppsV1().StatefulSets("team").Get(ctx, "db", metav1.GetOptions{})
		if err != nil || ss.Status.Replicas != 1 {
			return false, nil
		}
		j, err := c.BatchV1().Jobs("team").Get(ctx, "batch", metav1.GetOptions{})
		return err == nil && j.Status.Active == 1, nil
	})
}

func podTemplate(app string) corev1.PodTemplateSpec {
	p := cpuPod("x", "100m")
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}}, Spec: p.Spec}
}

// fillScenario makes one object of every kind an export carries in c,
// workloads whose Pods are placed, a bound and a pending Pod, and bulk
// bound Pods in namespace bulk.
func fillScenario(t *testing.T, c kubernetes.Interface, bulk int) {
	t.Helper()
	ctx := framework.TimeoutContext(t, 5*time.Minute)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	createNodes(t, c, "node", 3, true)
	for _, ns := range []string{"team", "bulk"} {
		must(c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}))
	}
	create := metav1.CreateOptions{}
	must(c.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}, create))
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	must(c.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "example.com/fast", VolumeBindingMode: &wffc}, create))
	must(c.StorageV1().CSINodes().Create(ctx, &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "node-0"},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: "fast.example.com", NodeID: "node-0"}}}}, create))
	must(c.NodeV1().RuntimeClasses().Create(ctx, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}, Handler: "runsc"}, create))
	must(c.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}, create))
	must(c.ResourceV1().ResourceSlices().Create(ctx, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "node-0-gpu"},
		Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: new("node-0"),
			Pool:    resourcev1.ResourcePool{Name: "node-0", ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0"}}}}, create))
	must(c.ResourceV1().ResourceClaims("team").Create(ctx, &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu"}}}}}}, create))
	must(c.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
		Spec: corev1.PersistentVolumeSpec{StorageClassName: "fast", AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/pv-1"}}}}, create))
	must(c.CoreV1().PersistentVolumeClaims("team").Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: new("fast"), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}, create))
	must(c.PolicyV1().PodDisruptionBudgets("team").Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}, create))

	selector := func(app string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	}
	must(c.AppsV1().Deployments("team").Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: new(int32(2)), Selector: selector("web"), Template: podTemplate("web")}}, create))
	must(c.AppsV1().StatefulSets("team").Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: appsv1.StatefulSetSpec{Replicas: new(int32(1)), ServiceName: "db", Selector: selector("db"), Template: podTemplate("db")}}, create))
	must(c.AppsV1().DaemonSets("team").Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent"},
		Spec: appsv1.DaemonSetSpec{Selector: selector("agent"), Template: podTemplate("agent")}}, create))
	job := podTemplate("batch")
	job.Spec.RestartPolicy = corev1.RestartPolicyNever
	must(c.BatchV1().Jobs("team").Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Spec: batchv1.JobSpec{Template: job}}, create))

	bound, pending := cpuPod("bound", "1"), cpuPod("pending", "100")
	for _, p := range []*corev1.Pod{bound, pending} {
		p.Namespace = "team"
		p.Spec.PriorityClassName = "high"
		createWithPriority(t, c, p)
	}
	waitWorkloads(t, c)
	framework.WaitUntil(t, 2*time.Minute, "the team's pods to be placed", func() (bool, error) {
		pods, err := c.CoreV1().Pods("team").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, p := range pods.Items {
			if p.Name != "pending" && p.Spec.NodeName == "" {
				return false, nil
			}
		}
		return len(pods.Items) == 9, nil // web 2, db 1, agent 3, batch 1, bound, pending
	})
	// Bulk: bound Pods, made last as they fill the nodes' pod counts.
	work := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, bulk)
	for range 32 {
		wg.Go(func() {
			for i := range work {
				p := boundPod("bulk", fmt.Sprintf("bulk-%05d", i), fmt.Sprintf("node-%d", i%3))
				p.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
				if _, err := c.CoreV1().Pods("bulk").Create(ctx, p, create); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range bulk {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// postImport posts doc (resume: the stored one, with ?resume=true) and
// checks that the import is accepted, still Importing: it is not bound by
// the request.
func postImport(t *testing.T, sim *framework.StandaloneSimulator, doc string, resume bool) contract.ImportStatus {
	t.Helper()
	path := contract.PathImport
	if resume {
		path += "?resume=true"
	}
	code, body := sim.Do(t, http.MethodPost, path, doc)
	if code != http.StatusAccepted {
		t.Fatalf("POST %s = %d %s, want 202", path, code, body)
	}
	var st contract.ImportStatus
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Phase != contract.ImportImporting || st.StartTime == nil {
		t.Errorf("POST %s answered %s, want the import's status, Importing", path, body)
	}
	return st
}

func getImport(t *testing.T, sim *framework.StandaloneSimulator) contract.ImportStatus {
	t.Helper()
	code, body := sim.Do(t, http.MethodGet, contract.PathImport, "")
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", contract.PathImport, code, body)
	}
	var st contract.ImportStatus
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// waitImported polls GET until the import ends, and wants it Succeeded.
func waitImported(t *testing.T, sim *framework.StandaloneSimulator) contract.ImportStatus {
	t.Helper()
	var st contract.ImportStatus
	framework.WaitUntil(t, 5*time.Minute, "the import to end", func() (bool, error) {
		st = getImport(t, sim)
		return st.Phase != contract.ImportImporting, nil
	})
	if st.Phase != contract.ImportSucceeded || st.CompletionTime == nil {
		t.Fatalf("import ended %+v, want Succeeded", st)
	}
	for r, c := range st.Resources {
		if c.Created+c.Existing+c.Skipped != c.Total || c.Failed != 0 {
			t.Errorf("%s: %+v, want every object created, existing or skipped", r, c)
		}
	}
	return st
}

const bulkPods = 1500

// TestExportImport saves a scenario of every kind an export carries from
// one simulator and replays it into a fresh one: the same objects, bound
// Pods on the same nodes, new UIDs, the workloads' Pods adopted rather
// than made again. The import runs in the background, past its request;
// done again it changes nothing; cut by a restart, it resumes.
func TestExportImport(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	src := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/export/uid-1")
	dst := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/import/uid-2")
	src.WaitReady(t, 2*time.Minute)
	dst.WaitReady(t, 2*time.Minute)
	fillScenario(t, src.Client(t), bulkPods)
	want := readScenario(t, src)

	status, exported := src.Do(t, http.MethodGet, contract.PathExport, "")
	if status != http.StatusOK {
		t.Fatalf("GET %s = %d %s", contract.PathExport, status, exported)
	}
	var shape map[string]json.RawMessage
	if err := json.Unmarshal([]byte(exported), &shape); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pods", "nodes", "pvs", "pvcs", "storageClasses", "priorityClasses", "schedulerConfig", "namespaces",
		"csiNodes", "podDisruptionBudgets", "runtimeClasses", "resourceSlices", "deviceClasses", "resourceClaims",
		"deployments", "replicaSets", "statefulSets", "daemonSets", "jobs"} {
		if string(shape[k]) == "" || string(shape[k]) == "[]" {
			t.Errorf("the export has no %q", k)
		}
	}

	t.Run("imported in the background", func(t *testing.T) {
		// Every Pod made in the simulator from now on: the imported
		// ones, and none of kube-controller-manager's own, which the
		// import holds while it writes (a workload controller running
		// then could see its workload before the Pods written ahead of
		// it, and make a Pod).
		made := watchPodsMade(t, dst)
		accepted := postImport(t, dst, exported, false)
		if got := accepted.Resources["pods"].Total; got != int64(len(want.Pods)) {
			t.Errorf("accepted with %d pods, want %d", got, len(want.Pods))
		}
		st := waitImported(t, dst)
		t.Logf("imported %d pods in %v", st.Resources["pods"].Created, st.CompletionTime.Sub(*st.StartTime))
		waitWorkloads(t, dst.Client(t))
		got := readScenario(t, dst)
		if d := cmp.Diff(want, got, ignoreUIDs); d != "" {
			t.Errorf("imported scenario (-exported +imported):\n%s", d)
		}
		for k, uid := range got.UIDs {
			if uid == want.UIDs[k] {
				t.Errorf("pod %s kept its UID %s", k, uid)
			}
		}
		for _, k := range made() {
			if _, exported := want.Pods[k]; !exported {
				t.Errorf("pod %s was made in the simulator, not imported", k)
			}
		}
	})

	t.Run("imported again, nothing changes", func(t *testing.T) {
		before := readScenario(t, dst)
		postImport(t, dst, exported, false)
		st := waitImported(t, dst)
		for r, c := range st.Resources {
			if c.Created != 0 {
				t.Errorf("%s: %+v, want nothing created", r, c)
			}
		}
		after := readScenario(t, dst)
		if d := cmp.Diff(before.UIDs, after.UIDs); d != "" {
			t.Errorf("pods imported again (-before +after):\n%s", d)
		}
	})

	t.Run("cut by a restart, resumed", func(t *testing.T) {
		fresh := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/import/uid-3")
		fresh.WaitReady(t, 2*time.Minute)
		postImport(t, fresh, exported, false)
		fresh.Restart(t)
		fresh.WaitReady(t, 2*time.Minute)
		// Cut short, it says so; if it ended first, it is Succeeded, and
		// the resume finds everything there.
		if st := getImport(t, fresh); st.Phase != contract.ImportSucceeded &&
			(st.Phase != contract.ImportFailed || !strings.Contains(st.LastError, "resume=true")) {
			t.Errorf("after the restart: %+v, want Failed saying how to resume", st)
		}
		postImport(t, fresh, "", true)
		waitImported(t, fresh)
		waitWorkloads(t, fresh.Client(t))
		got := readScenario(t, fresh)
		if d := cmp.Diff(want, got, ignoreUIDs); d != "" {
			t.Errorf("resumed scenario (-exported +imported):\n%s", d)
		}
	})
}
