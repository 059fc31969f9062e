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

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// shadowScheduler is a scheduler name the host does not serve and the
// simulator does: a host Pod for it stays pending until the test binds it,
// as the host's own scheduler would, while the simulator's scheduler has
// placed it already.
const shadowScheduler = "sim-shadow"

// pauseContainer runs the node's sandbox image, which it has without a pull.
func pauseContainer() corev1.Container {
	return corev1.Container{
		Name: "pause", Image: "sim.x-k8s.io/pause:1.0", ImagePullPolicy: corev1.PullNever,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}},
	}
}

// TestSourceHost: the host itself as a Sync source, through the README's
// recipe (a service-account-token Secret of an account bound to
// sim-source-reader). Its Node is a kwok Node inside; a Deployment's Pods
// follow its scale-up and scale-down, on the same Node; a Pod pending in
// the host gets the simulator's scheduling result inside; once the host
// binds it, the simulator says whether it agreed, on the Pod and in
// status.source. The web view's Source tab shows the mirror Syncing, with
// the objects it holds.
func TestSourceHost(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := newNamespace(t, "source-")
	const reader = "source-reader"
	framework.SourceToken(t, c, ns, reader)

	web := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{pauseContainer()}},
			},
		},
	}
	if _, err := c.Client.AppsV1().Deployments(ns).Create(ctx, web, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	s := &v1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: "mirror"},
		Spec: v1alpha1.SimulatorSpec{Source: &v1alpha1.SimulatorSource{
			SecretName: reader, Mode: v1alpha1.SourceModeSync, Namespaces: []string{ns},
		}},
	}
	start := time.Now()
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s = waitAvailable(t, ns, "mirror")
	inner := innerClient(t, s, simulatorPod(t, s))
	waitSource(t, ns, "mirror", v1alpha1.SourceSyncing)
	t.Logf("create → source Syncing: %s", time.Since(start).Round(100*time.Millisecond))

	node, err := inner.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the host's Node inside: %v", err)
	}
	if node.Annotations["kwok.x-k8s.io/node"] != "fake" {
		t.Errorf("the host's Node inside is not kwok's: annotations %v", node.Annotations)
	}

	for _, replicas := range []int32{2, 4, 1} {
		scale := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
		if _, err := c.Client.AppsV1().Deployments(ns).Patch(ctx, "web", types.MergePatchType, scale, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		waitWebPods(t, c.Client, inner, ns, int(replicas), c.NodeName)
	}

	// The candidate configuration: the simulator's scheduler also serves
	// shadowScheduler.
	config := filepath.Join(t.TempDir(), "scheduler.json")
	if err := os.WriteFile(config, []byte(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration",`+
		`"profiles":[{"schedulerName":"default-scheduler"},{"schedulerName":"`+shadowScheduler+`"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	api := framework.SimulatorPath(ns, "mirror", "api", "")
	if out, err := kubectl(t, "replace", "--raw", api+"/v1/schedulerconfiguration", "-f", config); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	candidate := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "candidate", Namespace: ns},
		Spec:       corev1.PodSpec{SchedulerName: shadowScheduler, Containers: []corev1.Container{pauseContainer()}},
	}
	createPod(t, c.Client, candidate)
	poll(t, "the pending candidate's result inside", 2*time.Minute, func(ctx context.Context) (bool, string) {
		p, err := inner.CoreV1().Pods(ns).Get(ctx, "candidate", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Spec.NodeName == c.NodeName && p.Annotations[schedulingresult.SummaryAnnotation] != "",
			fmt.Sprintf("node %q, result %q", p.Spec.NodeName, p.Annotations[schedulingresult.SummaryAnnotation])
	})
	if err := c.Client.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: "candidate"},
		Target:     corev1.ObjectReference{Kind: "Node", Name: c.NodeName},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the candidate's shadow agreement inside", time.Minute, func(ctx context.Context) (bool, string) {
		p, err := inner.CoreV1().Pods(ns).Get(ctx, "candidate", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		got := fmt.Sprintf("node %q, shadow node %q, agreement %q, result %t", p.Spec.NodeName,
			p.Annotations[contract.AnnotationShadowNode], p.Annotations[contract.AnnotationShadowAgreement], p.Annotations[schedulingresult.SummaryAnnotation] != "")
		return p.Spec.NodeName == c.NodeName && p.Annotations[contract.AnnotationShadowNode] == c.NodeName &&
			p.Annotations[contract.AnnotationShadowAgreement] == contract.ShadowSame && p.Annotations[schedulingresult.SummaryAnnotation] != "", got
	})
	// The web Pods count too when the mirror saw them pending before the
	// host's scheduler bound them: one Node, so always the same one.
	poll(t, "status.source.shadow", time.Minute, func(ctx context.Context) (bool, string) {
		got, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, "mirror", metav1.GetOptions{})
		if err != nil || got.Status.Source == nil {
			return false, fmt.Sprint(err)
		}
		shadow := got.Status.Source.Shadow
		return shadow.Same >= 1 && shadow.Other == 0 && shadow.Unschedulable == 0, fmt.Sprintf("%+v", shadow)
	})
	out, err := kubectl(t, "get", "simulator", "mirror", "-n", ns)
	if err != nil || !strings.Contains(out, string(v1alpha1.SourceSyncing)) {
		t.Errorf("kubectl get: SOURCE is not Syncing (%v):\n%s", err, out)
	}
	t.Logf("%s", out)
	sourceWebView(t, c, ns, "mirror")
}

// sourceWebView loads the web view of a simulator whose source is Syncing
// through `kubectl proxy` in Chromium: the header's badge and the Source
// tab say Syncing, with the objects mirrored by resource (Pods among them)
// and the source's namespaces. A screenshot goes to _output/ui/source.png.
func sourceWebView(t *testing.T, c *framework.Cluster, ns, name string) {
	start := time.Now()
	chromium, err := framework.InstallBrowser(t.Context())
	if err != nil {
		t.Fatalf("the browser check needs Chromium: %v", err)
	}
	b := newBrowser(t, chromium)
	b.do(chromedp.Navigate(kubectlProxy(t, c, c.KubeconfigPath) + framework.SimulatorPath(ns, name, "ui", "/#source")))
	phase := b.waitJS("the source's phase", `document.getElementById('source-phase')?.textContent || ''`, 20*time.Second)
	if phase != string(v1alpha1.SourceSyncing) {
		t.Errorf("the Source tab's phase: %q, want Syncing", phase)
	}
	if badge := b.js(`(() => { const b = document.getElementById('sim-source'); return b.hidden ? 'hidden' : b.textContent; })()`); badge != "source Syncing" {
		t.Errorf("the header's source badge: %q", badge)
	}
	if total := b.js(`document.getElementById('source-total').textContent`); total == "" || total == "0" {
		t.Errorf("the Source tab counts %q objects mirrored", total)
	}
	if pods := b.js(`document.querySelector('#source-objects tr[data-resource="pods"]')?.textContent || ''`); pods == "" {
		t.Errorf("the Source tab lists no Pods mirrored: %q", b.js(`document.getElementById('source-objects').textContent`))
	}
	if spec := b.js(`document.getElementById('source-spec').textContent`); !strings.Contains(spec, "Sync") || !strings.Contains(spec, ns) {
		t.Errorf("the Source tab's spec lacks the mode or the namespace %s: %q", ns, spec)
	}
	screenshots(t).take(b, "source")
	b.checkInert("the source view")
	t.Logf("web view of %s: source Syncing, %s objects, checked in %v", name, b.js(`document.getElementById('source-total').textContent`), time.Since(start).Round(100*time.Millisecond))
}

// waitSource waits until the simulator's status.source is in phase.
func waitSource(t testing.TB, ns, name string, phase v1alpha1.SourcePhase) {
	t.Helper()
	poll(t, fmt.Sprintf("the source of %s/%s to be %s", ns, name, phase), 2*time.Minute, func(ctx context.Context) (bool, string) {
		s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return s.Status.Source != nil && s.Status.Source.Phase == phase, fmt.Sprintf("%+v", s.Status.Source)
	})
}

// waitWebPods waits until the host has want running Pods of web, and the
// simulator the same Pods, on node.
func waitWebPods(t testing.TB, host, inner kubernetes.Interface, ns string, want int, node string) {
	t.Helper()
	names := func(ctx context.Context, c kubernetes.Interface, running bool) ([]string, error) {
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil || (running && p.Status.Phase != corev1.PodRunning) || p.Spec.NodeName != node {
				continue
			}
			out = append(out, p.Name)
		}
		return out, nil
	}
	poll(t, fmt.Sprintf("%d web Pods in the host and the same inside", want), 2*time.Minute, func(ctx context.Context) (bool, string) {
		inHost, err := names(ctx, host, true)
		if err != nil {
			return false, err.Error()
		}
		inside, err := names(ctx, inner, false)
		if err != nil {
			return false, err.Error()
		}
		return len(inHost) == want && strings.Join(inHost, ",") == strings.Join(inside, ","),
			fmt.Sprintf("host %v, inside %v", inHost, inside)
	})
}
