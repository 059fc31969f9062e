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

package recorder

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

func cpuPod(name string, priority int32, node string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec: v1.PodSpec{
			NodeName: node, Priority: &priority,
			Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}},
		},
	}
}

// A real preemption: DefaultPreemption evicts a low-priority Pod for a
// high-priority one; PostFilter's result names the node and the victim.
func TestPreemptionVictims(t *testing.T) {
	ctx := t.Context()
	metrics.Register()
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi"), v1.ResourcePods: resource.MustParse("10"),
	}}}
	low, high := cpuPod("low", 0, "n1"), cpuPod("high", 100, "")
	client := fake.NewClientset(node, low, high)
	factory := informers.NewSharedInformerFactory(client, 0)
	factory.Core().V1().Pods().Informer()
	factory.Policy().V1().PodDisruptionBudgets().Informer()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	t.Cleanup(factory.Shutdown)
	snapshot := cache.NewSnapshot([]*v1.Pod{low}, []*v1.Node{node})

	registry := plugins.NewInTreeRegistry()
	if err := registry.Register("Binder", func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return binder{}, nil }); err != nil {
		t.Fatal(err)
	}
	set := func(name string) config.PluginSet { return config.PluginSet{Enabled: []config.Plugin{{Name: name}}} }
	prof := &config.KubeSchedulerProfile{
		SchedulerName: "test-scheduler",
		Plugins: &config.Plugins{
			QueueSort:  set(names.PrioritySort),
			PreFilter:  set(names.NodeResourcesFit),
			Filter:     set(names.NodeResourcesFit),
			PostFilter: set(names.DefaultPreemption),
			Bind:       set("Binder"),
		},
		PluginConfig: []config.PluginConfig{
			{Name: names.NodeResourcesFit, Args: &config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{
				Type: config.LeastAllocated, Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}},
			}}},
			{Name: names.DefaultPreemption, Args: &config.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}},
		},
	}
	fw, err := frameworkruntime.NewFramework(ctx, registry, prof,
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithEventRecorder(events.NewFakeRecorder(10)),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithPodNominator(noNominations{}),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{fw: fw, sink: make(chanSink, 10), nodes: []*v1.Node{node}}
	e.sched = &scheduler.Scheduler{
		Profiles:    profile.Map{prof.SchedulerName: fw},
		SchedulePod: e.schedulePod,
		FailureHandler: func(context.Context, framework.Framework, *framework.QueuedPodInfo, *fwk.Status, *fwk.NominatingInfo, time.Time) {
		},
	}
	if _, err := Instrument(e.sched, e.sink); err != nil {
		t.Fatal(err)
	}
	e.fw = e.sched.Profiles[prof.SchedulerName]

	a := e.attempt(t, high, nil)
	if a.Outcome != Unschedulable {
		t.Fatalf("outcome %s (%s), want %s", a.Outcome, a.Message, Unschedulable)
	}
	if a.NominatedNode != "n1" {
		t.Errorf("nominated node %q, want n1", a.NominatedNode)
	}
	if d := cmp.Diff([]string{"ns/low"}, a.Victims); d != "" {
		t.Errorf("victims (-want +got):\n%s", d)
	}
	if got := a.PostFilter[names.DefaultPreemption]; got != Success {
		t.Errorf("postfilter %s: %q, want %q", names.DefaultPreemption, got, Success)
	}
	res := a.Result()
	if got, want := res.Summary.Text(), "0/1 nodes: NodeResourcesFit: Insufficient cpu (1); nominated n1 for preemption of ns/low"; got != want {
		t.Errorf("summary\n%q, want\n%q", got, want)
	}
	// The preemption is real: the victim goes.
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Pods("ns").Get(ctx, "low", metav1.GetOptions{})
		return err != nil, nil
	}); err != nil {
		t.Errorf("the victim was not deleted: %v", err)
	}
}
