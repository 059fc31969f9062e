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
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// statusOf decodes a Status body.
func statusOf(t testing.TB, body []byte) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("not a Status: %v\n%s", err, body)
	}
	return st
}

// TestInvalidObjects sends invalid objects through the host, as kubectl
// would, as a tenant of the shipped roles: each is a 422 naming the field, with
// and without a server-side dry run, and nothing is stored.
func TestInvalidObjects(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "invalid-objects")
	simulators := fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/simulators", ns)
	nodepools := fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/nodepools", ns)
	simulator := func(name, spec string) string {
		return fmt.Sprintf(`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":%q},"spec":%s}`, name, spec)
	}
	pool := func(name, spec string) string {
		return fmt.Sprintf(`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"NodePool","metadata":{"name":%q},"spec":%s}`, name, spec)
	}
	cases := []struct {
		name, path, body, field string
	}{
		{"simulator name not a DNS label", simulators, simulator("Bad.Name", `{}`), "metadata.name"},
		{"simulator name too long for its Service", simulators, simulator(strings.Repeat("a", 60), `{}`), "metadata.name"},
		{"port out of range", simulators, simulator("port", `{"kubeAPIServerPort":70000}`), "spec.kubeAPIServerPort"},
		{"ports equal", simulators, simulator("ports", `{"kubeAPIServerPort":1212}`), "spec.simulatorServerPort"},
		{"etcd URL scheme", simulators, simulator("etcd", `{"etcdURL":"ftp://x"}`), "spec.etcdURL"},
		{"CORS origin not a URL", simulators, simulator("cors", `{"corsAllowedOriginList":["::"]}`), "spec.corsAllowedOriginList[0]"},
		{"image not a reference", simulators, simulator("image", `{"image":"UPPER CASE"}`), "spec.image"},
		{"podTemplate container without image", simulators, simulator("tmpl", `{"podTemplate":{"spec":{"containers":[{"name":"sidecar"}]}}}`), "spec.podTemplate.spec.containers"},
		// Another simulator's keys in a shared external etcd are one prefix
		// away: the template may not choose the prefix, etcd or credentials.
		{"podTemplate sets the etcd prefix", simulators, simulator("prefix", `{"etcdURL":"https://etcd.example:2379","podTemplate":{"spec":{"containers":[{"name":"simulator","env":[{"name":"SIMULATOR_ETCD_PREFIX","value":"/simulators/other/uid"}]}]}}}`), "spec.podTemplate.spec.containers[0].env[0].name"},
		{"podTemplate sets the etcd URL", simulators, simulator("url", `{"podTemplate":{"spec":{"containers":[{"name":"simulator","env":[{"name":"KUBE_SCHEDULER_SIMULATOR_ETCD_URL","value":"https://etcd.example:2379"}]}]}}}`), "spec.podTemplate.spec.containers[0].env[0].name"},
		{"podTemplate passes --etcd-prefix", simulators, simulator("args", `{"podTemplate":{"spec":{"containers":[{"name":"simulator","args":["--etcd-prefix=/simulators/other/uid"]}]}}}`), "spec.podTemplate.spec.containers[0].args"},
		{"podTemplate replaces the command", simulators, simulator("command", `{"podTemplate":{"spec":{"containers":[{"name":"simulator","command":["sh","-c","simulator --etcd-prefix=/x"]}]}}}`), "spec.podTemplate.spec.containers[0].command"},
		{"podTemplate replaces the credentials volume", simulators, simulator("volume", `{"podTemplate":{"spec":{"volumes":[{"name":"credentials","secret":{"secretName":"other-simulator"}}]}}}`), "spec.podTemplate.spec.volumes[0].name"},
		{"podTemplate mounts over the credentials", simulators, simulator("mount", `{"podTemplate":{"spec":{"containers":[{"name":"simulator","volumeMounts":[{"name":"mine","mountPath":"/etc/simulator"}]}],"volumes":[{"name":"mine","emptyDir":{}}]}}}`), "spec.podTemplate.spec.containers[0].volumeMounts[0]"},
		{"simulator over the size limit", simulators, `{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"big","annotations":{` + largeAnnotations(17) + `}},"spec":{}}`, "metadata"},
		{"nodepool over the size limit", nodepools, pool("big", `{"simulatorName":"s","template":{"metadata":{"annotations":{`+largeAnnotations(9)+`}}}}`), "spec"},
		{"nodepool without simulator", nodepools, pool("nosim", `{"simulatorName":""}`), "spec.simulatorName"},
		{"negative replicas", nodepools, pool("neg", `{"simulatorName":"s","replicas":-1}`), "spec.replicas"},
		{"replicas above the bound", nodepools, pool("many", `{"simulatorName":"s","replicas":100000000}`), "spec.replicas"},
		{"template syntax", nodepools, pool("syntax", `{"simulatorName":"s","template":{"metadata":{"labels":{"a":"{{ .Index "}}}}`), "spec.template.metadata.labels[a]"},
		{"template loop", nodepools, pool("loop", `{"simulatorName":"s","template":{"metadata":{"annotations":{"a":"{{ range 1000000000000 }}x{{ end }}"}}}}`), "spec.template.metadata.annotations[a]"},
		{"template printf width", nodepools, pool("wide", `{"simulatorName":"s","template":{"spec":{"providerID":"{{ printf \"%999999999d\" 1 }}"}}}`), "spec.template.spec.providerID"},
		// Each printf repeats what the last made ten times: 63 bytes become 630 MB.
		{"template that multiplies its length", nodepools, pool("boom", `{"simulatorName":"s","template":{"metadata":{"annotations":{"a":"{{ .Name`+
			strings.Repeat(` | printf \"`+strings.Repeat("%[1]s", 10)+`\"`, 7)+` }}"}}}}`), "spec.template.metadata.annotations[a]"},
		{"template small for the first Node only", nodepools, pool("later", `{"simulatorName":"s","template":{"metadata":{"annotations":{"a":"{{ if eq .Index 0 }}ok{{ else }}`+
			strings.Repeat(`{{ printf \"%256s\" .Name }}`, 20)+`{{ end }}"}}}}`), "spec.template.metadata.annotations[a]"},
		{"Nodes over their size budget", nodepools, pool("large", `{"simulatorName":"s","template":{"metadata":{"annotations":{`+largeAnnotations(16)+`}}}}`), "spec.template"},
		{"podCIDR not a CIDR", nodepools, pool("cidr", `{"simulatorName":"s","template":{"spec":{"podCIDR":"10.0.0.0"}}}`), "spec.template.spec.podCIDR"},
		{"taint effect", nodepools, pool("taint", `{"simulatorName":"s","template":{"spec":{"taints":[{"key":"k","effect":"Sometimes"}]}}}`), "spec.template.spec.taints[0].effect"},
		{"allocatable above capacity", nodepools, pool("alloc", `{"simulatorName":"s","template":{"status":{"capacity":{"cpu":"1"},"allocatable":{"cpu":"2"}}}}`), "spec.template.status.allocatable[cpu]"},
	}
	// A tenant of the shipped simulator roles and of edit (a podTemplate
	// needs the right to create Pods), as the attacks were made: with a
	// server-side dry run too, which renders templates in the request.
	tenant, err := clientcmd.BuildConfigFromFlags("", simOnlyUser(t, ns, "tenant"))
	if err != nil {
		t.Fatal(err)
	}
	bind(t, ns, "tenant", "edit")
	framework.WaitForAccess(t, host, ns, "tenant", authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods"})
	for _, tc := range cases {
		for _, query := range []string{"", "?dryRun=All"} {
			t.Run(tc.name+query, func(t *testing.T) {
				code, body := rawRequestBody(t, tenant, http.MethodPost, tc.path+query, tc.body)
				if code != http.StatusUnprocessableEntity {
					t.Fatalf("%d, want 422\n%s", code, body)
				}
				st := statusOf(t, body)
				found := false
				for _, cause := range st.Details.Causes {
					found = found || strings.HasPrefix(cause.Field, tc.field)
				}
				if !found {
					t.Errorf("causes %+v name no field under %s", st.Details.Causes, tc.field)
				}
			})
		}
	}
	for _, path := range []string{simulators, nodepools} {
		code, body := rawRequest(t, host.Config, http.MethodGet, path)
		var list metav1.PartialObjectMetadataList
		if err := json.Unmarshal(body, &list); code != http.StatusOK || err != nil || len(list.Items) != 0 {
			t.Errorf("%s after invalid creations: %d %v\n%s", path, code, err, body)
		}
	}
	if n := recordCount(t.Context(), t, ns); n != 0 {
		t.Errorf("%d records stored for invalid objects", n)
	}
}

// largeAnnotations is n annotations of 4 KiB each, as JSON members.
func largeAnnotations(n int) string {
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf("%q:%q", fmt.Sprintf("a%d", i), strings.Repeat("x", 4<<10))
	}
	return strings.Join(members, ",")
}

// TestOversizeBodies: bodies above the server's limit (3 MiB, as kube's)
// are 413s, through the host and to sim-apiserver directly; through the
// proxy the inner apiserver refuses them the same way.
func TestOversizeBodies(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "oversize")
	runningSimulator(t, ns, "big")
	huge := strings.Repeat("x", 4<<20)
	object := fmt.Sprintf(`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"huge","annotations":{"a":%q}}}`, huge)
	simulators := fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/simulators", ns)
	requests := []struct {
		name, verb, path, body string
		cfg                    *rest.Config
	}{
		{"create through the host", http.MethodPost, simulators, object, host.Config},
		{"create directly", http.MethodPost, simulators, object, host.FrontProxyConfig("kubernetes-admin", "system:masters")},
		{"update through the host", http.MethodPut, simulators + "/big", object, host.Config},
		{"through the proxy", http.MethodPost, framework.SimulatorPath(ns, "big", "proxy", "/api/v1/namespaces/default/configmaps"),
			fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge"},"data":{"a":%q}}`, huge), host.Config},
	}
	for _, r := range requests {
		t.Run(r.name, func(t *testing.T) {
			code, body := rawRequestBody(t, r.cfg, r.verb, r.path, r.body)
			if code != http.StatusRequestEntityTooLarge {
				t.Errorf("%d, want 413\n%.500s", code, body)
			}
		})
	}
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Get(t.Context(), "big", metav1.GetOptions{}); err != nil {
		t.Errorf("the server after oversize bodies: %v", err)
	}
}

// TestPlantedRecords: records written into the server's namespace by
// someone else (an admin, a bug), malformed or contradicting themselves,
// never take the server down: it stays up, lists, watches and reconciles.
// A watch that meets one ends with an error, so its client relists.
func TestPlantedRecords(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "planted")
	sims := simClient(t).SimV1alpha1().Simulators(ns)
	pid, err := host.ProcessPID("sim-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	good, err := sims.Create(ctx, newSimulator("good"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := sims.Watch(ctx, metav1.ListOptions{ResourceVersion: good.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	labels := func(name string) map[string]string {
		return map[string]string{hoststore.LabelResource: "simulators.sim.x-k8s.io", hoststore.LabelNamespace: ns, hoststore.LabelName: name}
	}
	simulatorJSON := func(namespace, name string) string {
		return fmt.Sprintf(`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":%q,"namespace":%q,"uid":"planted"},"spec":{}}`, name, namespace)
	}
	planted := map[string]map[string]string{
		"no-data":      nil,
		"empty":        {"object": ""},
		"not-json":     {"object": "{not json"},
		"binary":       {"object": "\x00\xff\xfe" + strings.Repeat("\x01", 1000)},
		"null":         {"object": "null"},
		"wrong-kind":   {"object": `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"wrong-kind"}}`},
		"unknown-gv":   {"object": `{"apiVersion":"sim.x-k8s.io/v9","kind":"Simulator","metadata":{"name":"unknown-gv"}}`},
		"nodepool":     {"object": `{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"NodePool","metadata":{"name":"nodepool"},"spec":{"simulatorName":"good"}}`},
		"other-name":   {"object": simulatorJSON(ns, "someone-else")},
		"other-ns":     {"object": simulatorJSON("kube-system", "other-ns")},
		"deep":         {"object": strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)},
		"bad-rv-field": {"object": `{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"bad-rv-field","resourceVersion":"x","generation":-5,"deletionTimestamp":"never"}}`},
	}
	for name, data := range planted {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "planted-" + name, Namespace: framework.SimNamespace, Labels: labels(name)}, Data: data}
		if _, err := host.Client.CoreV1().ConfigMaps(framework.SimNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = host.Client.CoreV1().ConfigMaps(framework.SimNamespace).Delete(context.Background(), cm.Name, metav1.DeleteOptions{})
		})
	}

	// Reads go on: the good simulator is listed, the planted ones are each
	// read or refused, with no 5xx but for their own corruption.
	list, err := sims.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list with planted records: %v", err)
	}
	var names []string
	for _, s := range list.Items {
		names = append(names, s.Namespace+"/"+s.Name)
	}
	t.Logf("listed with planted records: %v", names)
	if !strings.Contains(strings.Join(names, " "), ns+"/good") {
		t.Errorf("the good simulator is not listed: %v", names)
	}
	if _, err := kubectl(t, host.KubeconfigPath, "get", "simulators", "-A"); err != nil {
		t.Errorf("kubectl get simulators -A: %v", err)
	}
	for name := range planted {
		_, err := sims.Get(ctx, name, metav1.GetOptions{})
		t.Logf("get of planted %s: %v", name, err)
	}
	// The watch that met the unreadable records says so with an error and
	// ends (it must not miss a change silently), so its client relists.
	waitFault(t, "the watch to report the planted records", func(ctx context.Context) (bool, error) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, fmt.Errorf("the watch ended without an error event")
			}
			return ev.Type == watch.Error, nil
		default:
			return false, nil
		}
	})
	relisted, err := sims.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("relist with planted records: %v", err)
	}
	w, err = sims.Watch(ctx, metav1.ListOptions{ResourceVersion: relisted.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// Writes, watches and the reconciler go on.
	if _, err := sims.Create(ctx, newSimulator("after"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPod(t, ns, "after", 1)
	waitFault(t, "the watch to see the simulator created after the planting", func(ctx context.Context) (bool, error) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, fmt.Errorf("the watch ended")
			}
			if ev.Type == watch.Error {
				return false, fmt.Errorf("watch error: %v", ev.Object)
			}
			m, err := metaOf(ev.Object)
			return err == nil && ev.Type == watch.Added && m.GetName() == "after", nil
		default:
			return false, nil
		}
	})
	if now, err := host.ProcessPID("sim-apiserver"); err != nil || now != pid {
		t.Errorf("sim-apiserver went down: pid %d → %d, %v", pid, now, err)
	}
}

func metaOf(obj interface{}) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no metadata", obj)
	}
	return m, nil
}

var (
	pemBlock = regexp.MustCompile(`-----BEGIN [A-Z ]+-----`)
	jwt      = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+`)
)

// credentialsIn returns what in text looks like a credential: a PEM block,
// a JWT, or one of the given secrets.
func credentialsIn(text string, secrets ...string) []string {
	found := pemBlock.FindAllString(text, 3)
	found = append(found, jwt.FindAllString(text, 3)...)
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			found = append(found, s[:min(len(s), 12)]+"…")
		}
	}
	return found
}

// TestNoCredentialsInOutput mints every kind of credential the server
// hands out and provokes its errors, then looks for credentials in events,
// status, error messages and the logs of every process of the run.
func TestNoCredentialsInOutput(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "nocreds")
	runningSimulator(t, ns, "vault")
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("pending"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tokenCfg, err := clientcmd.BuildConfigFromFlags("", fetchKubeconfig(t, ns, "vault", ""))
	if err != nil {
		t.Fatal(err)
	}
	directCfg, err := clientcmd.BuildConfigFromFlags("", fetchKubeconfig(t, ns, "vault", "?mode=direct"))
	if err != nil {
		t.Fatal(err)
	}
	secret, err := host.Client.CoreV1().Secrets(ns).Get(ctx, "sim-vault-credentials", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{tokenCfg.BearerToken, string(directCfg.KeyData)}
	for _, v := range secret.Data {
		secrets = append(secrets, string(v))
	}

	// Errors, each with its message.
	var outputs []string
	for _, r := range []struct {
		cfg  *rest.Config
		path string
	}{
		{host.Config, framework.SimulatorPath(ns, "vault", "kubeconfig", "?expirationSeconds=5")},
		{host.Config, framework.SimulatorPath(ns, "vault", "kubeconfig", "?mode=nope")},
		{host.Config, framework.SimulatorPath(ns, "missing", "kubeconfig", "")},
		{host.Config, framework.SimulatorPath(ns, "pending", "proxy", "/api")},
		{mustUserConfig(t, "nobody"), framework.SimulatorPath(ns, "vault", "kubeconfig", "")},
		{tokenCfg, framework.SimulatorPath(ns, "pending", "proxy", "/api")},
	} {
		code, body := rawRequest(t, r.cfg, http.MethodGet, r.path)
		if code < 400 {
			t.Errorf("GET %s: %d, want an error", r.path, code)
		}
		outputs = append(outputs, string(body))
	}
	// Status and events.
	for _, name := range []string{"vault", "pending"} {
		s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		status, _ := json.Marshal(s)
		outputs = append(outputs, string(status))
	}
	events, err := host.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventsJSON, _ := json.Marshal(events)
	outputs = append(outputs, string(eventsJSON))
	for i, out := range outputs {
		if found := credentialsIn(out, secrets...); len(found) > 0 {
			t.Errorf("output %d holds credentials %q:\n%.1000s", i, found, out)
		}
	}

	// The logs of every process so far: the host's, sim-apiserver's and the
	// simulators' (inner kube-apiserver, scheduler, kwok, etcd).
	logs, err := filepath.Glob(filepath.Join(host.Dir, "logs", "*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no logs: %v", err)
	}
	for _, path := range logs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if found := credentialsIn(string(data), secrets...); len(found) > 0 {
			t.Errorf("%s holds credentials %q", path, found)
		}
	}
	t.Logf("searched %d outputs and %d logs", len(outputs), len(logs))
}
