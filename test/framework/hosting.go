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
	"path/filepath"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// HostingRoleManifest holds sim-hosting, the ClusterRole a hosting
// cluster's account is bound to in its hosting namespace.
const HostingRoleManifest = "artifacts/deploy/rbac-hosting.yaml"

// HostingKubeconfig makes in c what docs/hosting.md makes for a hosting
// identity: the ClusterRole of HostingRoleManifest, a ServiceAccount
// sim-host of namespace (which exists) bound to it there alone, and
// returns an inline kubeconfig of it (a token of an hour, c's CA).
func HostingKubeconfig(tb testing.TB, c *Cluster, namespace string) []byte {
	tb.Helper()
	ctx := tb.Context()
	root, err := RepoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	if out, err := Kubectl(tb, c, c.KubeconfigPath, "apply", "-f", filepath.Join(root, HostingRoleManifest)); err != nil {
		tb.Fatalf("%v\n%s", err, out)
	}
	const account = "sim-host"
	if _, err := c.Client.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: account}}, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: account},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "sim-hosting"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: account, Namespace: namespace}},
	}
	if _, err := c.Client.RbacV1().RoleBindings(namespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	token, err := c.Client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, account,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return InlineKubeconfig(tb, c.Host, c.CACertPEM(), token.Status.Token)
}

// InlineKubeconfig is a kubeconfig of server (its CA ca) with token, all
// inline, as spec.hosting and spec.source take them.
func InlineKubeconfig(tb testing.TB, server string, ca []byte, token string) []byte {
	tb.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["hosting"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	kc.AuthInfos["sims"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["hosting"] = &clientcmdapi.Context{Cluster: "hosting", AuthInfo: "sims"}
	kc.CurrentContext = "hosting"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
