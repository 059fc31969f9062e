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
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestStartControlPlane checks the host control plane alone: the admin
// kubeconfig works, kube-controller-manager runs its controllers and
// certificates made for a user authenticate as that user under RBAC.
func TestStartControlPlane(t *testing.T) {
	c := Start(t, Options{WithoutSimAPIServer: true})
	ctx := t.Context()

	fromFile, err := clientcmd.BuildConfigFromFlags("", c.KubeconfigPath)
	if err != nil {
		t.Fatalf("loading %s: %v", c.KubeconfigPath, err)
	}
	admin, err := kubernetes.NewForConfig(fromFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{}); err != nil {
		t.Errorf("admin kubeconfig: getting kube-system: %v", err)
	}

	// root-ca-certificate-publisher-controller
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().ConfigMaps(corev1.NamespaceDefault).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Errorf("ConfigMap kube-root-ca.crt not published: %v", err)
	}

	userCfg, err := c.UserConfig("bob", "team-a")
	if err != nil {
		t.Fatal(err)
	}
	user, err := kubernetes.NewForConfig(userCfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = user.CoreV1().Pods(corev1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "bob" cannot list resource "pods"`) {
		t.Errorf("user without a role listing pods: got %v, want 403 for user bob", err)
	}
	review, err := user.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SelfSubjectReview: %v", err)
	}
	if got := review.Status.UserInfo; got.Username != "bob" || !slices.Contains(got.Groups, "team-a") {
		t.Errorf("user certificate authenticates as %s in %v, want bob in team-a", got.Username, got.Groups)
	}
}
