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
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// SourceReaderManifest holds sim-source-reader, the ClusterRole a source's
// account is bound to.
const SourceReaderManifest = "artifacts/deploy/rbac-source-reader.yaml"

// SourceToken makes in ns what README's recipe makes to use the host as a
// source: the ClusterRole of SourceReaderManifest, a ServiceAccount name
// bound to it cluster-wide (unbound at tb's cleanup), and a
// kubernetes.io/service-account-token Secret name for it, whose token it
// waits for.
func SourceToken(tb testing.TB, c *Cluster, ns, name string) {
	tb.Helper()
	ctx := tb.Context()
	root, err := RepoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	if out, err := Kubectl(tb, c, c.KubeconfigPath, "apply", "-f", filepath.Join(root, SourceReaderManifest)); err != nil {
		tb.Fatalf("%v\n%s", err, out)
	}
	if _, err := c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "sim-source-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
	}
	if _, err := c.Client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = c.Client.RbacV1().ClusterRoleBindings().Delete(context.WithoutCancel(ctx), binding.Name, metav1.DeleteOptions{})
	})
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{corev1.ServiceAccountNameKey: name}},
		Type:       corev1.SecretTypeServiceAccountToken,
	}
	if _, err := c.Client.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := c.Client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && len(s.Data[corev1.ServiceAccountTokenKey]) > 0, nil
	})
	if err != nil {
		tb.Fatalf("waiting for the token of %s/%s: %v", ns, name, err)
	}
}
