package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	waitForAccess(t, ns, user, authorizationv1.ResourceAttributes{Verb: "create", Group: "sim.x-k8s.io", Resource: "simulators"})
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

// waitForAccess waits until the host's RBAC allows user attrs in ns, so a
// later 403 is the server's decision, not the host's caches catching up.
func waitForAccess(t testing.TB, ns, user string, attrs authorizationv1.ResourceAttributes) {
	t.Helper()
	attrs.Namespace = ns
	eventually(t, user+" to be allowed to "+attrs.Verb+" "+attrs.Resource, func(ctx context.Context) (bool, error) {
		review, err := hostCluster(t).Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &attrs},
		}, metav1.CreateOptions{})
		return err == nil && review.Status.Allowed, err
	})
}

// TestPodTemplateNeedsCreatePods: a user bound only to the simulators roles
// tries to get a Pod of their choosing (another ServiceAccount with its
// token, the host's network, a privileged container, their own image) made
// by the server's account. Each is refused with a 403 that names the missing
// permission; the same spec from a user who may create Pods is accepted, and
// a plain simulator stays open to the simulators roles.
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
      automountServiceAccountToken: true
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
	waitForAccess(t, ns, "pod-maker", authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods"})
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
