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
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/pki"
	"sigs.k8s.io/simulator-apiserver/test/framework"
	"sigs.k8s.io/simulator-apiserver/test/images/httpclient/request"
)

// TestSimulatorFromAnotherNamespacesPod is issue #11's attack "a request to
// the simulator's PORT from another namespace's Pod", written as a tenant
// would try it: a Pod of a namespace with no simulator RBAC at all runs the
// test client (test/images/httpclient) against a simulator of another
// namespace, at its Pod IP and at its Service's ClusterIP, with what such a
// Pod has: no credentials, a certificate of its own CA in the simulator
// admin's name (sim-admin, system:masters), its own ServiceAccount token,
// plain HTTP. The simulator server (PORT) answers each as the layer's own
// tests say (test/simulator TestSimulator, test/integration
// TestSimulatorAPI): 401, and 400 to plain HTTP; the inner kube-apiserver
// lists neither Secrets nor Nodes to it: 403 to the anonymous, 401 to the
// forged certificate and the host's token. Nothing was reset.
//
// The node's CNI is the plain bridge plugin (test/framework/cni.go), which
// does not enforce NetworkPolicies: the simulator's policy (sim-NAME, which
// admits only sim-apiserver's namespace to PORT) is not in the way here, so
// the connections succeed (the open /readyz answers 200 from the attacker's
// Pod) and this test proves that authentication alone stops the attack. On
// a CNI that enforces the policy the same requests time out.
func TestSimulatorFromAnotherNamespacesPod(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()

	victimNS := newNamespace(t, "victim-")
	created, err := simClient(t).SimV1alpha1().Simulators(victimNS).Create(ctx,
		&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "victim"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := waitAvailable(t, victimNS, created.Name)
	pod := simulatorPod(t, s)
	service, err := c.Client.CoreV1().Services(victimNS).Get(ctx, sim.SimulatorServiceName(s.Name), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if net.ParseIP(service.Spec.ClusterIP) == nil {
		t.Fatalf("Service %s has no ClusterIP: %q", service.Name, service.Spec.ClusterIP)
	}
	// kube-proxy routes the ClusterIP some time after the Pod is Ready:
	// the host, which its rules serve too, waits for it.
	waitServiceAnswers(t, "https://"+net.JoinHostPort(service.Spec.ClusterIP, strconv.Itoa(int(s.Spec.SimulatorServerPort)))+contract.PathReadyz)
	// What the attacker is after: a Secret to read, state to reset.
	inner := innerClient(t, s, pod)
	precious := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "precious", Namespace: metav1.NamespaceDefault}, StringData: map[string]string{"password": "hunter2"}}
	if _, err := inner.CoreV1().Secrets(precious.Namespace).Create(ctx, precious, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Secret in the simulator: %v", err)
	}

	attackerNS := newNamespace(t, "attacker-")
	attacker := serviceaccount.MakeUsername(attackerNS, "default")
	for _, subresource := range []string{"api", "proxy", "kubeconfig"} {
		review, err := c.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: attacker, Groups: append(serviceaccount.MakeGroupNames(attackerNS), user.AllAuthenticated),
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: victimNS, Verb: "get", Group: sim.GroupName, Resource: "simulators", Subresource: subresource, Name: s.Name},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.Allowed {
			t.Fatalf("%s may get simulators/%s in %s: the attacker must hold no simulator RBAC", attacker, subresource, victimNS)
		}
	}
	// A forger's client certificate in the simulator admin's name (CN, O
	// as the x509 authenticators read them), signed by a CA of its own.
	forger, err := pki.NewCA("forger")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := forger.IssueClient(contract.AdminUser, []string{contract.AdminGroup}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	forged := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "forged"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: pair.CertPEM, corev1.TLSPrivateKeyKey: pair.KeyPEM}}
	if _, err := c.Client.CoreV1().Secrets(attackerNS).Create(ctx, forged, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	const (
		forgedDir = "/forged"
		tokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
		// The simulator server's refusals (cmd/simulator/internal/server AdminOnly).
		noCertificate = "no client certificate"
		unknownCA     = "certificate signed by unknown authority"
	)
	noCredentials := request.Spec{}
	forgedCert := request.Spec{CertFile: forgedDir + "/" + corev1.TLSCertKey, KeyFile: forgedDir + "/" + corev1.TLSPrivateKeyKey}
	ownToken := request.Spec{BearerTokenFile: tokenFile}
	type attack struct {
		spec       request.Spec
		wantStatus int
		wantBody   string // a substring, when the status alone does not say why
	}
	var attacks []attack
	add := func(name, method, url string, creds request.Spec, wantStatus int, wantBody string) {
		spec := creds
		spec.Name, spec.Method, spec.URL = name, method, url
		attacks = append(attacks, attack{spec, wantStatus, wantBody})
	}
	for target, ip := range map[string]string{"pod": pod.Status.PodIP, "service": service.Spec.ClusterIP} {
		port := "https://" + net.JoinHostPort(ip, strconv.Itoa(int(s.Spec.SimulatorServerPort)))
		// Open to all (the kubelet's probe): the connection itself is
		// not refused, so each refusal below is the authentication's.
		add(target+"/port/readyz", http.MethodGet, port+contract.PathReadyz, noCredentials, http.StatusOK, "")
		add(target+"/port/reset", http.MethodPut, port+contract.PathReset, noCredentials, http.StatusUnauthorized, noCertificate)
		add(target+"/port/export", http.MethodGet, port+contract.PathExport, noCredentials, http.StatusUnauthorized, noCertificate)
		add(target+"/port/schedulerconfiguration", http.MethodGet, port+contract.PathSchedulerConfig, noCredentials, http.StatusUnauthorized, noCertificate)
		add(target+"/port/reset/forged", http.MethodPut, port+contract.PathReset, forgedCert, http.StatusUnauthorized, unknownCA)
		add(target+"/port/export/forged", http.MethodGet, port+contract.PathExport, forgedCert, http.StatusUnauthorized, unknownCA)
		add(target+"/port/reset/token", http.MethodPut, port+contract.PathReset, ownToken, http.StatusUnauthorized, noCertificate)
		add(target+"/port/export/http", http.MethodGet, "http://"+strings.TrimPrefix(port, "https://")+contract.PathExport, noCredentials,
			http.StatusBadRequest, "HTTP request to an HTTPS server")

		apiserver := "https://" + net.JoinHostPort(ip, strconv.Itoa(int(s.Spec.KubeAPIServerPort)))
		// Anonymous requests are on (the default): public info only.
		add(target+"/apiserver/version", http.MethodGet, apiserver+"/version", noCredentials, http.StatusOK, "")
		for _, resource := range []string{"secrets", "nodes"} {
			add(target+"/apiserver/"+resource, http.MethodGet, apiserver+"/api/v1/"+resource, noCredentials, http.StatusForbidden, `\"system:anonymous\" cannot list resource \"`+resource+`\"`)
			add(target+"/apiserver/"+resource+"/forged", http.MethodGet, apiserver+"/api/v1/"+resource, forgedCert, http.StatusUnauthorized, "")
			add(target+"/apiserver/"+resource+"/token", http.MethodGet, apiserver+"/api/v1/"+resource, ownToken, http.StatusUnauthorized, "")
		}
	}
	specs := make([]request.Spec, 0, len(attacks))
	for _, a := range attacks {
		specs = append(specs, a.spec)
	}
	results := runHTTPClient(t, attackerNS, specs, corev1.Volume{Name: "forged", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: forged.Name}}}, forgedDir)

	for _, a := range attacks {
		got, ok := results[a.spec.Name]
		switch {
		case !ok:
			t.Errorf("%s %s (%s): no result", a.spec.Method, a.spec.URL, a.spec.Name)
		case got.Error != "" || got.Status != a.wantStatus || !strings.Contains(got.Body, a.wantBody):
			t.Errorf("%s %s (%s) = %s; want %d with %q", a.spec.Method, a.spec.URL, a.spec.Name, got, a.wantStatus, a.wantBody)
		default:
			t.Logf("%s %s (%s) = %d", a.spec.Method, a.spec.URL, a.spec.Name, got.Status)
		}
	}
	if len(results) != len(attacks) {
		t.Errorf("%d results for %d requests: %v", len(results), len(attacks), results)
	}
	if _, err := inner.CoreV1().Secrets(precious.Namespace).Get(ctx, precious.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the simulator's Secret %s after the refused resets: %v", precious.Name, err)
	}
}

// runHTTPClient runs the test client in a Pod of ns (restricted, as a
// tenant's Pod may be, with the namespace's default ServiceAccount token),
// with volume mounted at mountPath, makes specs and returns its results by
// name, read from the Pod's log.
func runHTTPClient(t testing.TB, ns string, specs []request.Spec, volume corev1.Volume, mountPath string) map[string]request.Result {
	t.Helper()
	c := hostCluster(t)
	args, err := request.Args(specs...)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "httpclient", Namespace: ns},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name:            "httpclient",
				Image:           framework.HTTPClientImage,
				ImagePullPolicy: corev1.PullNever,
				Args:            args,
				VolumeMounts:    []corev1.VolumeMount{{Name: volume.Name, MountPath: mountPath, ReadOnly: true}},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
			Volumes: []corev1.Volume{volume},
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr.To(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
		},
	}
	createPod(t, c.Client, pod)
	poll(t, "the httpclient Pod to finish", 3*time.Minute, func(ctx context.Context) (bool, string) {
		got, err := c.Client.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cs := range got.Status.ContainerStatuses {
			// The image is imported, never pulled: without it the Pod
			// would wait forever.
			if w := cs.State.Waiting; w != nil && (w.Reason == "ErrImageNeverPull" || w.Reason == "InvalidImageName") {
				t.Fatalf("the httpclient Pod cannot start: %s: %s (the cluster's Options.NodeImages must name %q)", w.Reason, w.Message, framework.HTTPClientImageName)
			}
		}
		if got.Status.Phase == corev1.PodFailed {
			t.Fatalf("the httpclient Pod failed: %s\n%s", podState(got), podLog(t, ns, pod.Name, ""))
		}
		return got.Status.Phase == corev1.PodSucceeded, podState(got)
	})
	results, err := request.ParseResults(podLog(t, ns, pod.Name, ""))
	if err != nil {
		t.Fatalf("the httpclient Pod's log: %v", err)
	}
	return results
}

// waitServiceAnswers waits until url answers 200 from the host.
func waitServiceAnswers(t testing.TB, url string) {
	t.Helper()
	poll(t, url+" to answer", time.Minute, func(ctx context.Context) (bool, string) {
		got := request.Do(ctx, request.Spec{Name: "probe", URL: url}, 5*time.Second)
		return got.Error == "" && got.Status == http.StatusOK, got.String()
	})
}

// podState is a Pod's phase and its containers' states, for messages.
func podState(pod *corev1.Pod) string {
	state := string(pod.Status.Phase)
	for _, cs := range pod.Status.ContainerStatuses {
		state += fmt.Sprintf("; %s: %+v", cs.Name, cs.State)
	}
	return state
}
