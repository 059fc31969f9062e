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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// The attacks of a tenant in a shared cluster: each test is what a user
// would try to get more than host RBAC gives them through sim-apiserver.

// simOnlyUser is bound to the simulators roles (sim-x-k8s-io:view and
// sim-x-k8s-io:edit) in ns and to nothing else: no Pods, no Secrets.
func simOnlyUser(t testing.TB, ns, user string) string {
	t.Helper()
	c := hostCluster(t)
	if _, err := kubectl(t, c.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, userRolesManifest)); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"sim-x-k8s-io:view", "sim-x-k8s-io:edit"} {
		bind(t, ns, user, role)
	}
	framework.WaitForAccess(t, c, ns, user, authorizationv1.ResourceAttributes{Verb: "create", Group: "sim.x-k8s.io", Resource: "simulators"})
	kc, err := c.UserKubeconfig(user)
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

// bind binds user to ClusterRole role in ns.
func bind(t testing.TB, ns, user, role string) {
	t.Helper()
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: strings.ReplaceAll(user+"-"+role, ":", "-")},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := hostCluster(t).Client.RbacV1().RoleBindings(ns).Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestPodTemplateNeedsCreatePods: a user bound only to the simulators roles
// tries to get a Pod of their choosing (the host's network, a privileged
// container, their own image, a claim of the namespace mounted) made by the
// server's account. Each is refused
// with a 403 that names the missing permission; the same spec from a user
// who may create Pods is accepted, and a plain simulator stays open to the
// simulators roles. Another ServiceAccount or a token is refused to
// everyone, with a 422 on the field.
func TestPodTemplateNeedsCreatePods(t *testing.T) {
	c := hostCluster(t)
	ns := createNamespace(t, "podtemplate")
	attacker := simOnlyUser(t, ns, "sim-only")

	apply := func(kubeconfig, manifest string) (string, error) {
		return kubectl(t, kubeconfig, "apply", "-n", ns, "-f", writeManifest(t, manifest))
	}
	attacks := map[string]string{
		"podTemplate": `apiVersion: sim.x-k8s.io/v1alpha1
kind: Simulator
metadata:
  name: evil-template
spec:
  podTemplate:
    spec:
      serviceAccountName: default
      hostNetwork: true
      containers:
      - name: simulator
        securityContext:
          privileged: true
`,
		"image": `apiVersion: sim.x-k8s.io/v1alpha1
kind: Simulator
metadata:
  name: evil-image
spec:
  image: attacker.example/shell:latest
`,
		// Any claim of the namespace, mounted read-write into a Pod the
		// server makes: what create pods allows.
		"etcdPersistentVolumeClaimName": `apiVersion: sim.x-k8s.io/v1alpha1
kind: Simulator
metadata:
  name: evil-etcdpersistentvolumeclaimname
spec:
  etcdPersistentVolumeClaimName: someone-elses-data
`,
	}
	for name, manifest := range attacks {
		t.Run(name, func(t *testing.T) {
			out, err := apply(attacker, manifest)
			if err == nil {
				t.Fatalf("a user without create pods applied a simulator that sets spec.%s:\n%s", name, out)
			}
			for _, want := range []string{"Forbidden", `cannot create pods in namespace "` + ns + `"`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}

	// A plain simulator is the simulators roles' to create; changing it to
	// shape the Pod is refused as creating it so would be.
	if out, err := apply(attacker, "apiVersion: sim.x-k8s.io/v1alpha1\nkind: Simulator\nmetadata:\n  name: plain\n"); err != nil {
		t.Fatalf("a plain simulator: %v\n%s", err, out)
	}
	_, err := kubectl(t, attacker, "patch", "-n", ns, "simulator", "plain", "--type=merge",
		"-p", `{"spec":{"podTemplate":{"spec":{"hostPID":true}}}}`)
	if err == nil || !strings.Contains(err.Error(), "cannot create pods") {
		t.Errorf("patching a podTemplate in without create pods: %v, want 403 naming create pods", err)
	}
	s, getErr := simClient(t).SimV1alpha1().Simulators(ns).Get(t.Context(), "plain", metav1.GetOptions{})
	if getErr != nil {
		t.Fatal(getErr)
	}
	if s.Spec.PodTemplate != nil || s.Generation != 1 {
		t.Errorf("the refused patch changed the simulator: generation %d, podTemplate %v", s.Generation, s.Spec.PodTemplate)
	}
	for name := range attacks {
		if _, err := simClient(t).SimV1alpha1().Simulators(ns).Get(t.Context(), "evil-"+strings.ToLower(name), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("simulator evil-%s: %v, want NotFound", strings.ToLower(name), err)
		}
	}

	// Whoever may create Pods may shape the simulator's.
	bind(t, ns, "pod-maker", "edit")
	framework.WaitForAccess(t, c, ns, "pod-maker", authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods"})
	podMaker, err := c.UserKubeconfig("pod-maker")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := apply(podMaker, `apiVersion: sim.x-k8s.io/v1alpha1
kind: Simulator
metadata:
  name: templated
spec:
  podTemplate:
    metadata:
      labels:
        team: a
`); err != nil {
		t.Errorf("a user who may create pods, with a podTemplate: %v\n%s", err, out)
	}
	// Not even they get the Pod another account, or a token: the server's
	// account may make no such Pod (sim-apiserver-object-shapes), so it is
	// refused where the field is named.
	out, err := apply(podMaker, `apiVersion: sim.x-k8s.io/v1alpha1
kind: Simulator
metadata:
  name: with-token
spec:
  podTemplate:
    spec:
      serviceAccountName: admin
      automountServiceAccountToken: true
`)
	for _, want := range []string{"is invalid", "spec.podTemplate.spec.serviceAccountName: Forbidden", "spec.podTemplate.spec.automountServiceAccountToken: Forbidden"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a podTemplate with another account and a token: %v (%s), want an error containing %q", err, out, want)
		}
	}
}

// writeManifest writes a manifest to a file for kubectl -f.
func writeManifest(t testing.TB, manifest string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manifest.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBackingObjectsMustBeOwned: labels and names are anyone's to forge in
// a namespace; only the simulator's UID in a controller owner reference
// makes a host object the simulator's.
//   - Every object the server makes carries that reference (so the host's GC
//     follows the simulator too).
//   - A user's Pod with the simulator's labels, Ready, is neither taken for
//     the simulator's Pod (which is made all the same) nor counted in its
//     status nor routed to by the proxy; nor is one that also carries the
//     simulator's owner reference (its UID is readable with view) under a
//     name that is not the server's for its Pod.
//   - A user's Secret or ServiceAccount made beforehand under the
//     simulator's names is never used: the simulator is Failed saying so, no
//     Pod mounts the Secret, no token is minted for the account, and deleting
//     the simulator leaves them.
func TestBackingObjectsMustBeOwned(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "owned")
	bind(t, ns, "mallory", "edit")
	framework.WaitForAccess(t, host, ns, "mallory", authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets"})
	mallory, err := host.UserKubeconfig("mallory")
	if err != nil {
		t.Fatal(err)
	}
	sims := simClient(t).SimV1alpha1().Simulators(ns)

	t.Run("owner references", func(t *testing.T) {
		s, err := sims.Create(ctx, newSimulator("plain"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		account := sim.SimulatorProxyAccountName("plain")
		objects := map[string]func(ctx context.Context) (metav1.Object, error){
			"Pod": func(ctx context.Context) (metav1.Object, error) {
				return host.Client.CoreV1().Pods(ns).Get(ctx, sim.SimulatorPodName("plain", 1), metav1.GetOptions{})
			},
			"Service": func(ctx context.Context) (metav1.Object, error) {
				return host.Client.CoreV1().Services(ns).Get(ctx, sim.SimulatorServiceName("plain"), metav1.GetOptions{})
			},
			"Secret": func(ctx context.Context) (metav1.Object, error) {
				return host.Client.CoreV1().Secrets(ns).Get(ctx, sim.SimulatorSecretName("plain"), metav1.GetOptions{})
			},
			"ServiceAccount": func(ctx context.Context) (metav1.Object, error) {
				return host.Client.CoreV1().ServiceAccounts(ns).Get(ctx, account, metav1.GetOptions{})
			},
			"Role": func(ctx context.Context) (metav1.Object, error) {
				return host.Client.RbacV1().Roles(ns).Get(ctx, account, metav1.GetOptions{})
			},
			"RoleBinding": func(ctx context.Context) (metav1.Object, error) {
				return host.Client.RbacV1().RoleBindings(ns).Get(ctx, account, metav1.GetOptions{})
			},
			"NetworkPolicy": func(ctx context.Context) (metav1.Object, error) {
				return host.Client.NetworkingV1().NetworkPolicies(ns).Get(ctx, sim.SimulatorNetworkPolicyName("plain"), metav1.GetOptions{})
			},
		}
		for kind, get := range objects {
			var obj metav1.Object
			eventually(t, "the simulator's "+kind, func(ctx context.Context) (bool, error) {
				obj, err = get(ctx)
				return err == nil, nil
			})
			ref := metav1.GetControllerOf(obj)
			if ref == nil || ref.UID != s.UID || ref.Kind != "Simulator" || ref.APIVersion != "sim.x-k8s.io/v1alpha1" || ref.Name != "plain" {
				t.Errorf("%s %s: controller %+v, want the Simulator plain of UID %s", kind, obj.GetName(), ref, s.UID)
			}
		}
	})

	t.Run("a forged Pod", func(t *testing.T) {
		// Ready before the simulator exists, with the labels of its first Pod.
		forged := `apiVersion: v1
kind: Pod
metadata:
  name: forged
  labels:
    sim.x-k8s.io/simulator: victim
    sim.x-k8s.io/generation: "1"
spec:
  containers:
  - name: listener
    image: attacker.example/listener:latest
`
		if out, err := kubectl(t, mallory, "apply", "-n", ns, "-f", writeManifest(t, forged)); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		pod, err := host.Client.CoreV1().Pods(ns).Get(ctx, "forged", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		makeReady(t, *pod)
		pod, err = host.Client.CoreV1().Pods(ns).Get(ctx, "forged", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pod.Status.PodIP, pod.Status.PodIPs = "127.0.0.1", []corev1.PodIP{{IP: "127.0.0.1"}}
		if _, err := host.Client.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}

		if _, err := sims.Create(ctx, newSimulator("victim"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// The simulator gets its own Pod: the forged one did not pass for it.
		own := sim.SimulatorPodName("victim", 1)
		var s *v1alpha1.Simulator
		eventually(t, "the simulator's own Pod in its status", func(ctx context.Context) (bool, error) {
			_, podErr := host.Client.CoreV1().Pods(ns).Get(ctx, own, metav1.GetOptions{})
			s, err = sims.Get(ctx, "victim", metav1.GetOptions{})
			return podErr == nil && err == nil && s.Status.PodName == own, nil
		})
		if s.Status.Phase == v1alpha1.SimulatorAvailable {
			t.Errorf("the simulator is Available by a forged Ready Pod: %+v", s.Status)
		}
		code, body := rawRequest(t, host.Config, http.MethodGet, framework.SimulatorPath(ns, "victim", "proxy", "/api"))
		if code != http.StatusServiceUnavailable {
			t.Errorf("proxy with only a forged Pod ready: %d, want 503\n%s", code, body)
		}
		if _, err := host.Client.CoreV1().Pods(ns).Get(ctx, "forged", metav1.GetOptions{}); err != nil {
			t.Errorf("the user's Pod was touched: %v", err)
		}
	})

	t.Run("a Pod with a forged owner reference", func(t *testing.T) {
		// The owner reference too, with the simulator's UID, which view reads,
		// under a name that is not the server's. No admission policy is
		// installed here: this is the server's own check, the second layer
		// behind the admission policy sim-apiserver-owner-references.
		if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, userRolesManifest)); err != nil {
			t.Fatal(err)
		}
		framework.WaitForAccess(t, host, ns, "mallory", authorizationv1.ResourceAttributes{Verb: "get", Group: sim.GroupName, Resource: "simulators"})
		if _, err := sims.Create(ctx, newSimulator("held"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		own := sim.SimulatorPodName("held", 1)
		pods := host.Client.CoreV1().Pods(ns)
		eventually(t, "the simulator's Pod", func(ctx context.Context) (bool, error) {
			_, err := pods.Get(ctx, own, metav1.GetOptions{})
			return err == nil, nil
		})
		uid, err := kubectl(t, mallory, "get", "-n", ns, "simulator", "held", "-o", "jsonpath={.metadata.uid}")
		if err != nil || strings.TrimSpace(uid) == "" {
			t.Fatalf("mallory reads the simulator's UID: %q, %v", uid, err)
		}
		forged := `apiVersion: v1
kind: Pod
metadata:
  name: listener
  labels:
    sim.x-k8s.io/simulator: held
    sim.x-k8s.io/generation: "1"
  ownerReferences:
  - apiVersion: sim.x-k8s.io/v1alpha1
    kind: Simulator
    name: held
    uid: ` + strings.TrimSpace(uid) + `
    controller: true
spec:
  containers:
  - name: listener
    image: attacker.example/listener:latest
`
		if out, err := kubectl(t, mallory, "apply", "-n", ns, "-f", writeManifest(t, forged)); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		pod, err := pods.Get(ctx, "listener", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		makeReady(t, *pod)
		if pod, err = pods.Get(ctx, "listener", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		pod.Status.PodIP, pod.Status.PodIPs = "127.0.0.1", []corev1.PodIP{{IP: "127.0.0.1"}}
		if _, err := pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}

		// The simulator's own Pod terminates (held by a finalizer here): the
		// forged Pod, of the same generation, Ready, is all that is left
		// for the pick, which prefers a live Pod to a terminating one.
		hold := []byte(`{"metadata":{"finalizers":["sim.x-k8s.io/test-hold"]}}`)
		if _, err := pods.Patch(ctx, own, types.MergePatchType, hold, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			release := []byte(`{"metadata":{"finalizers":null}}`)
			if _, err := pods.Patch(context.Background(), own, types.MergePatchType, release, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("releasing Pod %s: %v", own, err)
			}
		})
		if err := pods.Delete(ctx, own, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		// The server's cache sees the deletion after the forged Pod's
		// readiness (one watch, in order): from then on every read shows
		// what the pick makes of both.
		var s *v1alpha1.Simulator
		eventually(t, "the status to see the simulator's Pod terminate", func(ctx context.Context) (bool, error) {
			s, err = sims.Get(ctx, "held", metav1.GetOptions{})
			return err == nil && (s.Status.PodName == "listener" || strings.Contains(s.Status.Message, own+" is terminating")), nil
		})
		for i := 0; i < 10; i++ {
			if s.Status.PodName == "listener" || s.Status.Phase == v1alpha1.SimulatorAvailable {
				t.Fatalf("the forged Pod passes for the simulator's: %+v", s.Status)
			}
			time.Sleep(100 * time.Millisecond)
			if s, err = sims.Get(ctx, "held", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		code, body := rawRequest(t, host.Config, http.MethodGet, framework.SimulatorPath(ns, "held", "proxy", "/api"))
		if code != http.StatusServiceUnavailable {
			t.Errorf("proxy with only a forged, owner-referenced Pod ready: %d, want 503\n%s", code, body)
		}
		if _, err := pods.Get(ctx, "listener", metav1.GetOptions{}); err != nil {
			t.Errorf("the user's Pod was touched: %v", err)
		}
	})

	// What the user plants, labelled as ours so that the server's caches
	// see it, complete so that it would pass for the simulator's own.
	planted := map[string]string{
		"Secret": `apiVersion: v1
kind: Secret
metadata:
  name: sim-victim-secret-credentials
  labels:
    sim.x-k8s.io/simulator: victim-secret
stringData:
  ca.crt: mallory's
  ca.key: mallory's
  apiserver.crt: mallory's
  apiserver.key: mallory's
  admin.crt: mallory's
  admin.key: mallory's
  sa.key: mallory's
  sa.pub: mallory's
`,
		"ServiceAccount": `apiVersion: v1
kind: ServiceAccount
metadata:
  name: sim-victim-account-proxy
  labels:
    sim.x-k8s.io/simulator: victim-account
`,
	}
	for kind, manifest := range planted {
		t.Run("a planted "+kind, func(t *testing.T) {
			name := map[string]string{"Secret": "victim-secret", "ServiceAccount": "victim-account"}[kind]
			if out, err := kubectl(t, mallory, "apply", "-n", ns, "-f", writeManifest(t, manifest)); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if _, err := sims.Create(ctx, newSimulator(name), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			s := waitForPhase(t, simClient(t), ns, name, v1alpha1.SimulatorFailed)
			if !strings.Contains(s.Status.Message, kind) || !strings.Contains(s.Status.Message, "not controlled by this simulator") {
				t.Errorf("status message %q does not say the %s is not the simulator's", s.Status.Message, kind)
			}
			if pods := simulatorPods(ctx, t, ns, name); len(pods) != 0 {
				t.Errorf("a Pod was made with a planted %s: %s", kind, pods[0].Name)
			}
			code, body := rawRequest(t, host.Config, http.MethodGet, framework.SimulatorPath(ns, name, "kubeconfig", ""))
			if code < 400 || strings.Contains(string(body), "token:") {
				t.Errorf("kubeconfig with a planted %s: %d, want an error and no token\n%s", kind, code, body)
			}
			if err := sims.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the simulator to be gone", func(ctx context.Context) (bool, error) {
				_, err := sims.Get(ctx, name, metav1.GetOptions{})
				return apierrors.IsNotFound(err), nil
			})
			if out, err := kubectl(t, mallory, "get", "-n", ns, strings.ToLower(kind), map[string]string{"Secret": "sim-victim-secret-credentials", "ServiceAccount": "sim-victim-account-proxy"}[kind]); err != nil {
				t.Errorf("the user's %s went with the simulator: %v\n%s", kind, err, out)
			}
		})
	}
}

// TestPlantedRecord: someone who may write ConfigMaps in the server's
// namespace (but not Pods elsewhere) plants a record listed under their
// namespace that holds a simulator of another namespace, hoping the
// reconciler makes its Pod and credentials there. A record that does not
// hold what its labels and name say is garbage: skipped in lists and
// watches (so the reconciler never sees it), reported on a get.
func TestPlantedRecord(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	mine, victims := createNamespace(t, "planter"), createNamespace(t, "planted-in")
	sims := simClient(t).SimV1alpha1()
	if _, err := sims.Simulators(mine).Create(ctx, newSimulator("seed"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	seed := recordOf(t, mine, "seed")
	var object map[string]any
	if err := json.Unmarshal([]byte(seed.Data["object"]), &object); err != nil {
		t.Fatal(err)
	}
	meta := object["metadata"].(map[string]any)
	meta["namespace"], meta["name"], meta["uid"] = victims, "planted", "6f1d2c3b-planted"
	data, err := json.Marshal(object)
	if err != nil {
		t.Fatal(err)
	}
	labels := maps.Clone(seed.Labels)
	labels[hoststore.LabelName] = "planted"
	// Named as the record of mine/planted would be, so that a get finds it.
	sum := sha256.Sum256([]byte(labels[hoststore.LabelResource] + "/" + mine + "/planted"))
	record := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "rec-" + hex.EncodeToString(sum[:16]), Labels: labels},
		Data:       map[string]string{"object": string(data)},
	}
	records := host.Client.CoreV1().ConfigMaps(framework.SimNamespace)
	if _, err := records.Create(ctx, record, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = records.Delete(context.Background(), record.Name, metav1.DeleteOptions{}) })

	all, err := sims.Simulators(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all.Items {
		if s.Name == "planted" {
			t.Errorf("the planted record is listed as simulator %s/%s", s.Namespace, s.Name)
		}
	}
	if _, err := sims.Simulators(mine).Get(ctx, "planted", metav1.GetOptions{}); err == nil || !strings.Contains(err.Error(), "is labelled") {
		t.Errorf("get of the planted record: %v, want an error saying it is labelled as one object and holds another", err)
	}
	if _, err := sims.Simulators(victims).Get(ctx, "planted", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get of the planted object where it claims to be: %v, want NotFound", err)
	}
	// The reconciler has reconciled a simulator made after the plant: had
	// it read the planted one, its Pod would be there by now.
	if _, err := sims.Simulators(victims).Create(ctx, newSimulator("witness"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPod(t, victims, "witness", 1)
	if pods := simulatorPods(ctx, t, victims, "planted"); len(pods) != 0 {
		t.Errorf("the reconciler acted on the planted record: Pod %s/%s", victims, pods[0].Name)
	}
}

// TestImpersonationCannotBeDropped: a user allowed to use a simulator's
// proxy sends their request straight to sim-apiserver (as the aggregator
// would) with a Connection header that names the impersonation headers, so
// that a reverse proxy drops them as hop-by-hop after the server set them,
// and the inner apiserver sees only the server's admin certificate. The
// inner apiserver must still see the caller.
func TestImpersonationCannotBeDropped(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "impersonation")
	simOnlyUser(t, ns, "conn-user")
	runningSimulator(t, ns, "target")
	cfg := host.FrontProxyConfig("conn-user", "team-a")
	// HTTP/1.1, where a Connection header is legal (HTTP/2 refuses it).
	cfg.NextProtos = []string{"http/1.1"}
	wrap := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			req = req.Clone(req.Context())
			req.Header.Set("Connection", "Impersonate-User, Impersonate-Group, Impersonate-Uid")
			return wrap(rt).RoundTrip(req)
		})
	}
	checkCallerInside(t, cfg, ns, "target", "conn-user", "team-a")
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestKubeconfigGrantsNoMoreThanTheCaller: a user who may only read
// through a simulator's proxy asks for its kubeconfig, hoping for a token
// or a certificate that can write. They get a token that can only read;
// ?mode=direct (a certificate with every right inside) and a user without
// the proxy at all get a 403 that says what is missing. A user with every
// proxy verb gets a kubeconfig that writes, and the direct one.
func TestKubeconfigGrantsNoMoreThanTheCaller(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "kubeconfigs")
	runningSimulator(t, ns, "target")
	kubeconfigRule := rbacv1.PolicyRule{APIGroups: []string{"sim.x-k8s.io"}, Resources: []string{"simulators/kubeconfig"}, Verbs: []string{"get"}}
	framework.Grant(t, host, ns, "reader", kubeconfigRule, rbacv1.PolicyRule{APIGroups: []string{"sim.x-k8s.io"}, Resources: []string{"simulators/proxy"}, Verbs: []string{"get"}})
	framework.Grant(t, host, ns, "no-proxy", kubeconfigRule)
	simOnlyUser(t, ns, "writer")

	// fetch gets a kubeconfig as user, waiting out the 503 of accounts the
	// reconciler has not made yet.
	fetch := func(user, query string) (int, string) {
		var code int
		var body []byte
		eventually(t, "an answer for "+user, func(context.Context) (bool, error) {
			code, body = rawRequest(t, mustUserConfig(t, user), http.MethodGet, framework.SimulatorPath(ns, "target", "kubeconfig", query))
			return code != http.StatusServiceUnavailable, nil
		})
		if code != http.StatusOK {
			return code, string(body)
		}
		path := filepath.Join(t.TempDir(), "kubeconfig")
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		return code, path
	}

	code, readerKC := fetch("reader", "")
	if code != http.StatusOK {
		t.Fatalf("reader's kubeconfig: %d\n%s", code, readerKC)
	}
	if out, err := kubectl(t, readerKC, "get", "ns", "kube-system", "-o", "name"); err != nil || strings.TrimSpace(out) != "namespace/kube-system" {
		t.Errorf("reading with the reader's kubeconfig: %v\n%s", err, out)
	}
	if out, err := kubectl(t, readerKC, "create", "configmap", "by-reader"); err == nil || !strings.Contains(err.Error(), `cannot create resource "simulators/proxy"`) {
		t.Errorf("writing with the reader's kubeconfig: %v, want the host's 403 on create simulators/proxy\n%s", err, out)
	}
	for user, want := range map[string]string{
		"reader":   "missing create, update, patch, delete",
		"no-proxy": "cannot get simulators/proxy",
	} {
		query := map[string]string{"reader": "?mode=direct", "no-proxy": ""}[user]
		if code, body := fetch(user, query); code != http.StatusForbidden || !strings.Contains(body, want) {
			t.Errorf("%s's kubeconfig%s: %d, want 403 saying %q\n%s", user, query, code, want, body)
		}
	}

	code, writerKC := fetch("writer", "")
	if code != http.StatusOK {
		t.Fatalf("writer's kubeconfig: %d\n%s", code, writerKC)
	}
	if out, err := kubectl(t, writerKC, "create", "configmap", "by-writer"); err != nil {
		t.Errorf("writing with the writer's kubeconfig: %v\n%s", err, out)
	}
	if code, direct := fetch("writer", "?mode=direct"); code != http.StatusOK {
		t.Errorf("writer's direct kubeconfig: %d\n%s", code, direct)
	} else if out, err := kubectl(t, direct, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); err != nil || out != "writer" {
		t.Errorf("the direct kubeconfig acts as %q (%v), want writer", out, err)
	}
}

// TestPodPassesRestricted: a namespace that enforces the restricted Pod
// Security Standard takes simulators. The host's PodSecurity admission
// judges the Pod twice: at the dry-run of create, and when the reconciler
// makes it.
func TestPodPassesRestricted(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "restricted")
	if _, err := kubectl(t, host.KubeconfigPath, "label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted"); err != nil {
		t.Fatal(err)
	}
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("strict"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a simulator in a restricted namespace: %v", err)
	}
	pod := waitForPod(t, ns, "strict", 1)
	if sc := pod.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("the Pod may run as root: %+v", sc)
	}
}

// TestServerRBACConfined: the server's account, as artifacts/deploy binds
// it, may mint no token, write no Secret and make no Pod in a namespace that
// has not opted in (kube-system included); a namespace opts in with the one
// RoleBinding the manifest documents.
func TestServerRBACConfined(t *testing.T) {
	host := hostCluster(t)
	if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, "artifacts/deploy/rbac-server.yaml")); err != nil {
		t.Fatal(err)
	}
	const server = "system:serviceaccount:sim-system:sim-apiserver"
	canI := func(ns string, args ...string) string {
		out, _ := kubectl(t, host.KubeconfigPath, append([]string{"auth", "can-i", "-n", ns, "--as=" + server}, args...)...)
		return strings.TrimSpace(out)
	}
	ns := createNamespace(t, "opted-in")
	for _, check := range [][]string{
		{"create", "serviceaccounts/token"},
		{"create", "secrets"},
		{"update", "secrets"},
		{"create", "pods"},
		{"create", "rolebindings"},
	} {
		for _, where := range []string{"kube-system", ns} {
			if got := canI(where, check...); got != "no" {
				t.Errorf("before any opt-in, can the server %s in %s? %q, want no", strings.Join(check, " "), where, got)
			}
		}
	}
	if _, err := kubectl(t, host.KubeconfigPath, "create", "rolebinding", "sim-apiserver", "-n", ns,
		"--clusterrole=sim-apiserver:namespace", "--serviceaccount=sim-system:sim-apiserver"); err != nil {
		t.Fatal(err)
	}
	framework.WaitForAccess(t, host, ns, server, authorizationv1.ResourceAttributes{Verb: "create", Resource: "serviceaccounts", Subresource: "token"})
	if got := canI("kube-system", "create", "serviceaccounts/token"); got != "no" {
		t.Errorf("after %s opted in, can the server create serviceaccounts/token in kube-system? %q, want no", ns, got)
	}
}
