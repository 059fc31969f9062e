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
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestServerAdmissionPolicies: the ValidatingAdmissionPolicies of
// artifacts/deploy confine the server's account, in a namespace that opted
// in (so RBAC allows each request), to the objects it labels, in the shapes
// it makes them, and to tokens of its per-simulator accounts. Each request
// is made as that account, as a compromised server would; the objects the
// server makes (built by pkg/backing) still pass.
func TestServerAdmissionPolicies(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "policy")
	asServer := serverIn(t, ns)
	installAdmissionPolicies(t, ns, asServer)
	secret := func(name string, labels map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, StringData: map[string]string{"k": "v"}}
	}
	refused := func(err error) bool {
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "sim-apiserver may only")
	}
	for _, name := range []string{"default", "sim-x-proxy"} {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
		if _, err := host.Client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))}}

	if _, err := asServer.CoreV1().Secrets(ns).Create(ctx, secret("unlabelled", nil), metav1.CreateOptions{}); !refused(err) {
		t.Errorf("the server creates an unlabelled Secret: %v, want refused by the policy", err)
	}
	if _, err := asServer.CoreV1().Secrets(ns).Create(ctx, secret("sim-x-credentials", map[string]string{sim.LabelSimulator: "x"}), metav1.CreateOptions{}); err != nil {
		t.Errorf("the server creates a labelled Secret: %v", err)
	}

	// A user's own Secret: the server may neither take it over by adding
	// the label nor delete it.
	users, err := host.Client.CoreV1().Secrets(ns).Create(ctx, secret("users", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	relabelled := users.DeepCopy()
	relabelled.Labels = map[string]string{sim.LabelSimulator: "x"}
	if _, err := asServer.CoreV1().Secrets(ns).Update(ctx, relabelled, metav1.UpdateOptions{}); !refused(err) {
		t.Errorf("the server labels a user's Secret: %v, want refused by the policy", err)
	}
	if err := asServer.CoreV1().Secrets(ns).Delete(ctx, users.Name, metav1.DeleteOptions{}); !refused(err) {
		t.Errorf("the server deletes a user's Secret: %v, want refused by the policy", err)
	}

	// Tokens: only for its per-simulator accounts.
	if _, err := asServer.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", request, metav1.CreateOptions{}); !refused(err) {
		t.Errorf("the server mints a token for the default account: %v, want refused by the policy", err)
	}
	if _, err := asServer.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "sim-x-proxy", request, metav1.CreateOptions{}); err != nil {
		t.Errorf("the server mints a token for a simulator's account: %v", err)
	}

	// Shapes. The objects of a simulator "ghost", as the server builds
	// them, labelled and owned: each passes; each variant below, labelled
	// all the same, is refused. Dry runs: admission runs, nothing is kept.
	ghost := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "ghost", Namespace: ns, UID: "0a1b2c3d-ghost", Generation: 1}}
	v1alpha1.SetObjectDefaults_Simulator(ghost)
	writer, reader := backing.ProxyAccounts(ghost.Name)
	_, writerRole, writerBinding := backing.ProxyAccess(ghost, writer)
	readerAccount, readerRole, _ := backing.ProxyAccess(ghost, reader)
	// The Role a binding refers to must exist for RBAC to let the binding
	// be made (or dry-run): the writer's, without the owner reference, so
	// that neither the GC nor the server's sweep of a gone simulator's
	// objects takes it away.
	kept := writerRole.DeepCopy()
	kept.OwnerReferences = nil
	if _, err := host.Client.RbacV1().Roles(ns).Create(ctx, kept, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	pod, err := backing.Pod(ghost, backing.Local(ghost))
	if err != nil {
		t.Fatal(err)
	}
	credentials, err := backing.Secret(ghost, backing.Local(ghost))
	if err != nil {
		t.Fatal(err)
	}
	service := backing.Service(ghost, backing.Local(ghost))
	core, rbac := asServer.CoreV1(), asServer.RbacV1()
	made := map[string]func() error{
		"Pod":            func() error { _, err := core.Pods(ns).Create(ctx, pod, dryRun); return err },
		"Secret":         func() error { _, err := core.Secrets(ns).Create(ctx, credentials, dryRun); return err },
		"Service":        func() error { _, err := core.Services(ns).Create(ctx, service, dryRun); return err },
		"ServiceAccount": func() error { _, err := core.ServiceAccounts(ns).Create(ctx, readerAccount, dryRun); return err },
		"Role":           func() error { _, err := rbac.Roles(ns).Create(ctx, readerRole, dryRun); return err },
		"RoleBinding":    func() error { _, err := rbac.RoleBindings(ns).Create(ctx, writerBinding, dryRun); return err },
		"NetworkPolicy": func() error {
			_, err := asServer.NetworkingV1().NetworkPolicies(ns).Create(ctx, backing.NetworkPolicy(ghost, framework.SimNamespace, backing.Local(ghost)), dryRun)
			return err
		},
	}
	for kind, create := range made {
		if err := create(); err != nil {
			t.Errorf("the server makes a simulator's %s as it does: %v", kind, err)
		}
	}

	// RoleBindings: only a simulator's Role to its account of that name.
	binding := func(mutate func(*rbacv1.RoleBinding)) *rbacv1.RoleBinding {
		b := writerBinding.DeepCopy()
		mutate(b)
		return b
	}
	user := rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "mallory"}
	namespaceRole := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "sim-apiserver:namespace"}
	bindings := map[string]*rbacv1.RoleBinding{
		"the server's ClusterRole to a user":                  binding(func(b *rbacv1.RoleBinding) { b.RoleRef, b.Subjects = namespaceRole, []rbacv1.Subject{user} }),
		"the server's ClusterRole to the simulator's account": binding(func(b *rbacv1.RoleBinding) { b.RoleRef = namespaceRole }),
		"the simulator's Role to a user":                      binding(func(b *rbacv1.RoleBinding) { b.Subjects = []rbacv1.Subject{user} }),
		"the simulator's Role to its account and a user":      binding(func(b *rbacv1.RoleBinding) { b.Subjects = append(b.Subjects, user) }),
		"the simulator's Role to the default account": binding(func(b *rbacv1.RoleBinding) {
			b.Subjects = []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: ns}}
		}),
		"the simulator's Role to its account's namesake in kube-system": binding(func(b *rbacv1.RoleBinding) { b.Subjects[0].Namespace = metav1.NamespaceSystem }),
		"under another name": binding(func(b *rbacv1.RoleBinding) { b.Name = "grant" }),
	}
	for what, b := range bindings {
		if _, err := rbac.RoleBindings(ns).Create(ctx, b, dryRun); !refused(err) {
			t.Errorf("the server binds %s: %v, want refused by the policy", what, err)
		}
	}

	// Roles: only simulators/proxy of their own simulator.
	role := func(rule rbacv1.PolicyRule) *rbacv1.Role {
		r := readerRole.DeepCopy()
		r.Rules = append(r.Rules, rule)
		return r
	}
	roles := map[string]*rbacv1.Role{
		"get secrets": role(rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}),
		"another simulator's proxy": role(rbacv1.PolicyRule{APIGroups: []string{sim.GroupName}, Resources: []string{"simulators/proxy"},
			ResourceNames: []string{"x"}, Verbs: []string{"get"}}),
		"every simulator's proxy": role(rbacv1.PolicyRule{APIGroups: []string{sim.GroupName}, Resources: []string{"simulators/proxy"}, Verbs: []string{"get"}}),
	}
	for what, r := range roles {
		if _, err := rbac.Roles(ns).Create(ctx, r, dryRun); !refused(err) {
			t.Errorf("the server makes a Role that grants %s: %v, want refused by the policy", what, err)
		}
	}

	// Secrets: never a token Secret, which the host fills with a token of
	// the account it names.
	tokenSecret := secret("sim-x-token", map[string]string{sim.LabelSimulator: "x"})
	tokenSecret.Type = corev1.SecretTypeServiceAccountToken
	tokenSecret.Annotations = map[string]string{corev1.ServiceAccountNameKey: "default"}
	if _, err := core.Secrets(ns).Create(ctx, tokenSecret, dryRun); !refused(err) {
		t.Errorf("the server makes a token Secret for the default account: %v, want refused by the policy", err)
	}

	// Pods: the default account, without its token.
	pods := map[string]func(*corev1.Pod){
		"runs as another account":            func(p *corev1.Pod) { p.Spec.ServiceAccountName = "sim-x-proxy" },
		"mounts the default account's token": func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(true) },
		"projects a token": func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}},
			}}})
		},
	}
	for what, mutate := range pods {
		p := pod.DeepCopy()
		mutate(p)
		if _, err := core.Pods(ns).Create(ctx, p, dryRun); !refused(err) {
			t.Errorf("the server makes a Pod that %s: %v, want refused by the policy", what, err)
		}
	}
}

// TestOwnerReferencePolicy: a tenant of the shipped roles (edit, which
// includes the simulators roles) reads a simulator's UID and makes objects
// with an owner reference to it, to pass for the simulator's: refused by
// the policy sim-apiserver-owner-references, on create and on update, while
// the tenant's ordinary objects, their updates of the server's objects, and
// the garbage collector's removal of owner references go through.
func TestOwnerReferencePolicy(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "owner-policy")
	if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, userRolesManifest)); err != nil {
		t.Fatal(err)
	}
	bind(t, ns, "tenant", "edit")
	framework.WaitForAccess(t, host, ns, "tenant", authorizationv1.ResourceAttributes{Verb: "get", Group: sim.GroupName, Resource: "simulators"})
	framework.WaitForAccess(t, host, ns, "tenant", authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods"})
	// Made before the policies: this cluster's sim-apiserver runs as an
	// administrator, not as the account the policy lets through.
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("victim"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	own := sim.SimulatorPodName("victim", 1)
	eventually(t, "the simulator's Pod and Service", func(ctx context.Context) (bool, error) {
		_, podErr := host.Client.CoreV1().Pods(ns).Get(ctx, own, metav1.GetOptions{})
		_, svcErr := host.Client.CoreV1().Services(ns).Get(ctx, sim.SimulatorServiceName("victim"), metav1.GetOptions{})
		return podErr == nil && svcErr == nil, nil
	})
	installAdmissionPolicies(t, ns, serverIn(t, ns))

	tenantConfig := rest.CopyConfig(host.Config)
	tenantConfig.Impersonate = rest.ImpersonationConfig{UserName: "tenant", Groups: []string{"system:authenticated"}}
	tenant := kubernetes.NewForConfigOrDie(tenantConfig)
	s, err := simclientset.NewForConfigOrDie(tenantConfig).SimV1alpha1().Simulators(ns).Get(ctx, "victim", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the tenant reads the simulator: %v", err)
	}
	ref := metav1.OwnerReference{APIVersion: "sim.x-k8s.io/v1alpha1", Kind: "Simulator", Name: s.Name, UID: s.UID, Controller: ptr.To(true)}
	refused := func(err error) bool {
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "only sim-apiserver may set an owner reference to a sim.x-k8s.io object")
	}
	listener := func(name string, refs ...metav1.OwnerReference) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: backing.Labels(s), OwnerReferences: refs},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "listener", Image: "attacker.example/listener:latest"}}},
		}
	}

	pods := tenant.CoreV1().Pods(ns)
	if _, err := pods.Create(ctx, listener(own+"-forged", ref), metav1.CreateOptions{}); !refused(err) {
		t.Errorf("the tenant creates a Pod owned by the simulator: %v, want refused by the policy", err)
	}
	notController := ref
	notController.Controller = nil
	forgedSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "forged", Namespace: ns, OwnerReferences: []metav1.OwnerReference{notController}}}
	if _, err := tenant.CoreV1().Secrets(ns).Create(ctx, forgedSecret, metav1.CreateOptions{}); !refused(err) {
		t.Errorf("the tenant creates a Secret owned by the simulator: %v, want refused by the policy", err)
	}

	// Their own objects, owned by their own objects too, are theirs to make.
	config, err := tenant.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the tenant creates a ConfigMap: %v", err)
	}
	ordinary, err := pods.Create(ctx, listener("ordinary", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: config.Name, UID: config.UID}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the tenant creates an ordinary Pod: %v", err)
	}
	// ... but not to add the simulator as an owner later.
	ordinary.OwnerReferences = append(ordinary.OwnerReferences, ref)
	if _, err := pods.Update(ctx, ordinary, metav1.UpdateOptions{}); !refused(err) {
		t.Errorf("the tenant adds the simulator as its Pod's owner: %v, want refused by the policy", err)
	}

	// The server's objects stay the tenant's to label, as RBAC allows.
	label := []byte(`{"metadata":{"labels":{"team":"a"}}}`)
	if _, err := pods.Patch(ctx, own, types.MergePatchType, label, metav1.PatchOptions{}); err != nil {
		t.Errorf("the tenant labels the simulator's Pod: %v", err)
	}
	// And the garbage collector removes owner references (orphaning), as
	// its own account.
	gcConfig := rest.CopyConfig(host.Config)
	gcConfig.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:kube-system:generic-garbage-collector",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}}
	orphan := []byte(`{"metadata":{"ownerReferences":null}}`)
	if _, err := kubernetes.NewForConfigOrDie(gcConfig).CoreV1().Services(ns).Patch(ctx, sim.SimulatorServiceName("victim"), types.MergePatchType, orphan, metav1.PatchOptions{}); err != nil {
		t.Errorf("the garbage collector orphans the simulator's Service: %v", err)
	}
}

// serverIn opts ns in, as its admin would (artifacts/deploy's
// rbac-server.yaml, bound there), and returns a client that acts as the
// server's account.
func serverIn(t *testing.T, ns string) kubernetes.Interface {
	t.Helper()
	host := hostCluster(t)
	if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, "artifacts/deploy/rbac-server.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := kubectl(t, host.KubeconfigPath, "create", "rolebinding", "sim-apiserver", "-n", ns,
		"--clusterrole=sim-apiserver:namespace", "--serviceaccount=sim-system:sim-apiserver"); err != nil {
		t.Fatal(err)
	}
	framework.WaitForAccess(t, host, ns, serverAccount, authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets"})
	config := rest.CopyConfig(host.Config)
	config.Impersonate = rest.ImpersonationConfig{UserName: serverAccount, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:sim-system", "system:authenticated"}}
	asServer, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return asServer
}

const serverAccount = "system:serviceaccount:sim-system:sim-apiserver"

// installAdmissionPolicies applies artifacts/deploy/admission-policy.yaml,
// waits until each of its policies is in force (probed in ns, where
// asServer has the server's rights), and removes them when the test ends:
// sim-apiserver-owner-references would refuse this cluster's sim-apiserver,
// which runs as an administrator, so the removal is awaited too.
func installAdmissionPolicies(t *testing.T, ns string, asServer kubernetes.Interface) {
	t.Helper()
	host := hostCluster(t)
	manifest := filepath.Join(repoRoot, "artifacts/deploy/admission-policy.yaml")
	names := policyNames(t, manifest)
	if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", manifest); err != nil {
		t.Fatal(err)
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	// A Secret owned by a simulator, made by an administrator: refused only
	// while sim-apiserver-owner-references is in force.
	owned := func(ctx context.Context, client kubernetes.Interface, ns string) error {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Namespace: ns, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "sim.x-k8s.io/v1alpha1", Kind: "Simulator", Name: "probe", UID: "0a1b2c3d-probe",
		}}}}
		_, err := client.CoreV1().Secrets(ns).Create(ctx, secret, dryRun)
		return err
	}
	// Not kubectl delete: it runs with t.Context(), which is done by the
	// time cleanups run, so it would delete nothing.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		admission := host.Client.AdmissionregistrationV1()
		for _, name := range names {
			if err := admission.ValidatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting ValidatingAdmissionPolicyBinding %s: %v", name, err)
			}
			if err := admission.ValidatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting ValidatingAdmissionPolicy %s: %v", name, err)
			}
		}
		err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			return owned(ctx, host.Client, metav1.NamespaceDefault) == nil, nil
		})
		if err != nil {
			t.Errorf("waiting for sim-apiserver-owner-references to be out of force: %v", err)
		}
	})
	// The host apiserver reads each policy and its binding on its own (CI
	// once saw the Secret policy in force and the token policy not yet):
	// wait for all of them. The probes are dry runs, which go through
	// admission and store nothing, but TokenRequest, which has no dry run:
	// a probe the policy lets through mints a 10-minute token of a test
	// namespace's account.
	refused := func(err error, message string) bool {
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), message)
	}
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))}}
	eventually(t, "the admission policies to be in force", func(ctx context.Context) (bool, error) {
		unlabelled := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns}}
		if _, err := asServer.CoreV1().Secrets(ns).Create(ctx, unlabelled, dryRun); !refused(err, "sim-apiserver may only create secrets labelled") {
			return false, nil
		}
		token := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns, Labels: map[string]string{sim.LabelSimulator: "probe"},
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}}, Type: corev1.SecretTypeServiceAccountToken}
		if _, err := asServer.CoreV1().Secrets(ns).Create(ctx, token, dryRun); !refused(err, "sim-apiserver may only make Secrets of type") {
			return false, nil
		}
		if err := owned(ctx, host.Client, ns); !refused(err, "only sim-apiserver may set an owner reference") {
			return false, nil
		}
		_, err := asServer.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", request, metav1.CreateOptions{})
		return refused(err, "sim-apiserver may only mint tokens"), nil
	})
}

// policyNames are the names of the ValidatingAdmissionPolicies in manifest,
// each with a binding of the same name.
func policyNames(t *testing.T, manifest string) []string {
	t.Helper()
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var object metav1.PartialObjectMetadata
		if err := decoder.Decode(&object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading %s: %v", manifest, err)
		}
		if object.Kind == "ValidatingAdmissionPolicy" {
			names = append(names, object.Name)
		}
	}
	if len(names) == 0 {
		t.Fatalf("no ValidatingAdmissionPolicy in %s", manifest)
	}
	return names
}
