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

package framework

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// Benchmarks' Pods live in the default namespace of the simulator, labelled
// bench=PREFIX: the scheduling benchmarks of test/simulator and
// test/integration make, watch and delete them alike.

// CreatePods creates the n Pods pod(i) makes with 32 writers, within
// timeout, and fails tb on the first error.
func CreatePods(tb testing.TB, c kubernetes.Interface, timeout time.Duration, n int, pod func(i int) *corev1.Pod) {
	tb.Helper()
	ctx := TimeoutContext(tb, timeout)
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range 32 {
		wg.Go(func() {
			for i := range work {
				p := pod(i)
				if _, err := c.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		tb.Fatalf("creating pods: %v", firstErr)
	}
}

// CreatePendingPods creates n Pods labelled bench=prefix for
// schedulerName, each requesting 100m of CPU.
func CreatePendingPods(tb testing.TB, c kubernetes.Interface, prefix, schedulerName string, n int) {
	tb.Helper()
	CreatePods(tb, c, 5*time.Minute, n, func(i int) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("%s-%d", prefix, i), Labels: map[string]string{"bench": prefix}},
			Spec: corev1.PodSpec{
				SchedulerName: schedulerName,
				Containers: []corev1.Container{{
					Name: "app", Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
				}},
			},
		}
	})
}

// MeasureBinding calls start, waits until the n Pods labelled bench=prefix
// are bound and returns their rate from the first binding to the last.
func MeasureBinding(tb testing.TB, c kubernetes.Interface, prefix string, n int, start func()) float64 {
	tb.Helper()
	ctx := TimeoutContext(tb, 15*time.Minute)
	selector := "bench=" + prefix
	list, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		tb.Fatal(err)
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = selector
			return c.CoreV1().Pods("default").Watch(ctx, o)
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Stop()
	start()
	bound := map[string]bool{}
	var first, last time.Time
	for len(bound) < n {
		select {
		case <-ctx.Done():
			tb.Fatalf("%d of %d pods bound in time", len(bound), n)
		case ev, ok := <-w.ResultChan():
			if !ok {
				tb.Fatalf("watch ended with %d of %d pods bound", len(bound), n)
			}
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || p.Spec.NodeName == "" || bound[p.Name] {
				continue
			}
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			last = now
			bound[p.Name] = true
		}
	}
	return float64(n-1) / last.Sub(first).Seconds()
}

// AnnotationBytes is the size of the annotations of the Pods labelled
// bench=prefix, keys and values: what every write and watch event of such
// a Pod carries (sim-scheduler's results among them).
func AnnotationBytes(tb testing.TB, c kubernetes.Interface, prefix string) int64 {
	tb.Helper()
	list, err := c.CoreV1().Pods("default").List(TimeoutContext(tb, time.Minute), metav1.ListOptions{LabelSelector: "bench=" + prefix})
	if err != nil {
		tb.Fatal(err)
	}
	var n int64
	for _, p := range list.Items {
		for k, v := range p.Annotations {
			n += int64(len(k) + len(v))
		}
	}
	return n
}

// DeleteBenchPods deletes the Pods labelled bench=prefix at once and waits
// until they are gone.
func DeleteBenchPods(tb testing.TB, c kubernetes.Interface, prefix string) {
	tb.Helper()
	ctx := TimeoutContext(tb, 5*time.Minute)
	selector := metav1.ListOptions{LabelSelector: "bench=" + prefix}
	if err := c.CoreV1().Pods("default").DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, selector); err != nil {
		tb.Fatal(err)
	}
	WaitUntil(tb, 5*time.Minute, "the "+prefix+" pods to go", func() (bool, error) {
		list, err := c.CoreV1().Pods("default").List(ctx, selector)
		return err == nil && len(list.Items) == 0, nil
	})
}
