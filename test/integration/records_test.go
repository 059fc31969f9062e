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
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestRecordsPolicy: with artifacts/deploy/records-policy.yaml, nobody but
// the server's account (not an administrator of sim-system, not
// system:masters) deletes, relabels, rewrites or plants a record, while
// other ConfigMaps of sim-system stay writable and the object stays whole.
func TestRecordsPolicy(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "records")
	pools := fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/nodepools", ns)
	if code, body := rawRequestBody(t, host.Config, http.MethodPost, pools,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"NodePool","metadata":{"name":"kept"},"spec":{"simulatorName":"s","replicas":0}}`); code != http.StatusCreated {
		t.Fatalf("creating the NodePool: %d\n%s", code, body)
	}
	records, err := host.Client.CoreV1().ConfigMaps(framework.SimNamespace).List(ctx, metav1.ListOptions{
		LabelSelector: hoststore.LabelNamespace + "=" + ns + "," + hoststore.LabelName + "=kept",
	})
	if err != nil || len(records.Items) != 1 {
		t.Fatalf("the NodePool's record: %v, %d found", err, len(records.Items))
	}
	record := records.Items[0]

	// An administrator of sim-system: may write its ConfigMaps (RBAC).
	const admin = "records-admin"
	if _, err := kubectl(t, host.KubeconfigPath, "create", "rolebinding", "records-admin", "-n", framework.SimNamespace,
		"--clusterrole=admin", "--user="+admin); err != nil && !strings.Contains(err.Error(), "AlreadyExists") {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := host.Client.RbacV1().RoleBindings(framework.SimNamespace).Delete(ctx, "records-admin", metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting the RoleBinding records-admin: %v", err)
		}
	})
	framework.WaitForAccess(t, host, framework.SimNamespace, admin, authorizationv1.ResourceAttributes{Verb: "delete", Resource: "configmaps"})
	asAdmin := impersonating(t, host.Config, admin)

	manifest := filepath.Join(repoRoot, "artifacts/deploy/records-policy.yaml")
	if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", manifest); err != nil {
		t.Fatal(err)
	}
	dryDelete := metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
	refused := func(err error) bool {
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "sim-apiserver-records")
	}
	t.Cleanup(func() {
		// This cluster's sim-apiserver runs as an administrator, whom the
		// policy refuses: wait until it is out of force.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		admission := host.Client.AdmissionregistrationV1()
		if err := admission.ValidatingAdmissionPolicyBindings().Delete(ctx, "sim-apiserver-records", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting the binding: %v", err)
		}
		if err := admission.ValidatingAdmissionPolicies().Delete(ctx, "sim-apiserver-records", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting the policy: %v", err)
		}
		err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			return host.Client.CoreV1().ConfigMaps(framework.SimNamespace).Delete(ctx, record.Name, dryDelete) == nil, nil
		})
		if err != nil {
			t.Errorf("waiting for sim-apiserver-records to be out of force: %v", err)
		}
	})
	eventually(t, "the records policy to be in force", func(ctx context.Context) (bool, error) {
		return refused(asAdmin.CoreV1().ConfigMaps(framework.SimNamespace).Delete(ctx, record.Name, dryDelete)), nil
	})

	attempts := map[string]func(ctx context.Context, c kubernetes.Interface) error{
		"delete": func(ctx context.Context, c kubernetes.Interface) error {
			return c.CoreV1().ConfigMaps(framework.SimNamespace).Delete(ctx, record.Name, metav1.DeleteOptions{})
		},
		"delete all": func(ctx context.Context, c kubernetes.Interface) error {
			return c.CoreV1().ConfigMaps(framework.SimNamespace).DeleteCollection(ctx, metav1.DeleteOptions{},
				metav1.ListOptions{LabelSelector: hoststore.LabelName + "=kept"})
		},
		"remove its resource label": func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().ConfigMaps(framework.SimNamespace).Patch(ctx, record.Name, types.JSONPatchType,
				[]byte(`[{"op":"remove","path":"/metadata/labels/records.sim.x-k8s.io~1resource"}]`), metav1.PatchOptions{})
			return err
		},
		"corrupt its data": func(ctx context.Context, c kubernetes.Interface) error {
			cm := record.DeepCopy()
			for k := range cm.Data {
				cm.Data[k] = "{"
			}
			cm.ResourceVersion = ""
			_, err := c.CoreV1().ConfigMaps(framework.SimNamespace).Update(ctx, cm, metav1.UpdateOptions{})
			return err
		},
		"plant one": func(ctx context.Context, c kubernetes.Interface) error {
			planted := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "planted", Namespace: framework.SimNamespace,
				Labels: map[string]string{hoststore.LabelResource: "nodepools.sim.x-k8s.io"}}}
			_, err := c.CoreV1().ConfigMaps(framework.SimNamespace).Create(ctx, planted, metav1.CreateOptions{})
			return err
		},
	}
	for name, attempt := range attempts {
		for who, c := range map[string]kubernetes.Interface{"an admin of sim-system": asAdmin, "system:masters": host.Client} {
			if err := attempt(ctx, c); !refused(err) {
				t.Errorf("%s, %s: %v, want refused by the records policy", name, who, err)
			}
		}
	}
	// The policy is about records only.
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "other-", Namespace: framework.SimNamespace}}
	if _, err := asAdmin.CoreV1().ConfigMaps(framework.SimNamespace).Create(ctx, other, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("another ConfigMap of sim-system: %v", err)
	}
	// The server's account may.
	asServer := impersonating(t, host.Config, serverAccount, "system:serviceaccounts", "system:serviceaccounts:sim-system")
	if err := asServer.CoreV1().ConfigMaps(framework.SimNamespace).Delete(ctx, record.Name, dryDelete); apierrors.IsForbidden(err) && refused(err) {
		t.Errorf("the server's account deleting its record: %v", err)
	}
	if code, body := rawRequest(t, host.Config, http.MethodGet, pools+"/kept"); code != http.StatusOK {
		t.Errorf("the NodePool after the attempts: %d\n%s", code, body)
	}
}

// impersonating is a host client acting as user, of groups.
func impersonating(t testing.TB, config *rest.Config, user string, groups ...string) kubernetes.Interface {
	t.Helper()
	c := rest.CopyConfig(config)
	c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
	client, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	return client
}
