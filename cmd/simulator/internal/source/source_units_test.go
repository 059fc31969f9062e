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

package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

func TestFilter(t *testing.T) {
	pods, nodes, namespaces := mirror.KindOf("pods"), mirror.KindOf("nodes"), mirror.KindOf("namespaces")
	meta := func(namespace, name string, labels map[string]string) metav1.Object {
		return &metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels}
	}
	web := map[string]string{"app": "web"}
	tests := []struct {
		name   string
		source contract.Source
		kind   *mirror.Kind
		obj    metav1.Object
		want   bool
	}{
		{"no filter: a pod", contract.Source{}, pods, meta("a", "p", nil), true},
		{"pod in a filtered namespace", contract.Source{Namespaces: []string{"a"}}, pods, meta("a", "p", nil), true},
		{"pod outside the namespaces", contract.Source{Namespaces: []string{"a"}}, pods, meta("b", "p", nil), false},
		{"pod matching the selector", contract.Source{LabelSelector: "app=web"}, pods, meta("a", "p", web), true},
		{"pod not matching the selector", contract.Source{LabelSelector: "app=web"}, pods, meta("a", "p", nil), false},
		{"pod matching in a wrong namespace", contract.Source{Namespaces: []string{"a"}, LabelSelector: "app=web"}, pods, meta("b", "p", web), false},
		{"node: cluster-scoped, all", contract.Source{Namespaces: []string{"a"}, LabelSelector: "app=web"}, nodes, meta("", "n", nil), true},
		{"namespace in the filter", contract.Source{Namespaces: []string{"a"}, LabelSelector: "app=web"}, namespaces, meta("", "a", nil), true},
		{"namespace outside the filter", contract.Source{Namespaces: []string{"a"}}, namespaces, meta("", "b", nil), false},
		{"namespace without a filter", contract.Source{LabelSelector: "app=web"}, namespaces, meta("", "b", nil), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := NewFilter(&tc.source)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Keep(tc.kind, tc.obj); got != tc.want {
				t.Errorf("Keep = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestFilterListOptions(t *testing.T) {
	f, err := NewFilter(&contract.Source{Namespaces: []string{"a", "b"}, LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	pods, nodes := mirror.KindOf("pods"), mirror.KindOf("nodes")
	var po, no metav1.ListOptions
	f.ListOptions(pods, &po)
	f.ListOptions(nodes, &no)
	got := map[string]any{"podScopes": f.Scopes(pods), "nodeScopes": f.Scopes(nodes), "podSelector": po.LabelSelector, "nodeSelector": no.LabelSelector}
	want := map[string]any{"podScopes": []string{"a", "b"}, "nodeScopes": []string{""}, "podSelector": "app=web", "nodeSelector": ""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lists (-want +got):\n%s", d)
	}
}

func TestStatusPhases(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name  string
		steps func(s *status)
		want  contract.SourceStatus
	}{
		{"starts importing", func(*status) {}, contract.SourceStatus{Phase: contract.SourceImporting}},
		{
			"failed while a reader fails, in the source's words",
			func(s *status) { s.readerFailed("pods", errors.New("Unauthorized")) },
			contract.SourceStatus{Phase: contract.SourceFailed, Message: "Unauthorized"},
		},
		{
			"the first failing reader by name speaks",
			func(s *status) {
				s.readerFailed("pods", errors.New("pods: Forbidden"))
				s.readerFailed("nodes", errors.New("nodes: Forbidden"))
			},
			contract.SourceStatus{Phase: contract.SourceFailed, Message: "nodes: Forbidden"},
		},
		{
			"a reader the source forbids is skipped, not failed",
			func(s *status) {
				s.readerFailed("nodes", errors.New("nodes is forbidden"))
				s.setPhase(contract.SourceSynced)
				s.skip("nodes", errors.New("nodes is forbidden"))
				s.skip("namespaces", errors.New("namespaces is forbidden"))
			},
			contract.SourceStatus{Phase: contract.SourceSynced, Skipped: []string{"namespaces", "nodes"},
				Message: "skipped, as the source forbids reading them: namespaces, nodes (namespaces is forbidden)"},
		},
		{
			"a failure speaks over the skipped",
			func(s *status) {
				s.skip("nodes", errors.New("nodes is forbidden"))
				s.readerFailed("pods", errors.New("Unauthorized"))
			},
			contract.SourceStatus{Phase: contract.SourceFailed, Skipped: []string{"nodes"}, Message: "Unauthorized"},
		},
		{
			"back to its phase once every reader reads",
			func(s *status) {
				s.readerFailed("pods", errors.New("Unauthorized"))
				s.setPhase(contract.SourceSyncing)
				s.readerOK("pods")
			},
			contract.SourceStatus{Phase: contract.SourceSyncing},
		},
		{
			"synced once, with lag and shadow counts",
			func(s *status) {
				s.setPhase(contract.SourceSynced)
				s.applied(3 * time.Second)
				s.synced(at, 1500*time.Millisecond)
				s.countShadow(contract.ShadowSame)
				s.countShadow(contract.ShadowSame)
				s.countShadow(contract.ShadowOther)
				s.countShadow(contract.ShadowUnschedulable)
			},
			contract.SourceStatus{Phase: contract.SourceSynced, LastSyncTime: &at, LagMilliseconds: 1500,
				Shadow: contract.ShadowCounts{Same: 2, Other: 1, Unschedulable: 1}},
		},
		{
			"the first copy's sync time keeps the last lag",
			func(s *status) {
				s.applied(20 * time.Millisecond)
				s.synced(at, -1)
			},
			contract.SourceStatus{Phase: contract.SourceImporting, LastSyncTime: &at, LagMilliseconds: 20},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStatus()
			tc.steps(s)
			if d := cmp.Diff(tc.want, s.get(nil)); d != "" {
				t.Errorf("status (-want +got):\n%s", d)
			}
		})
	}
}

func TestTraceBound(t *testing.T) {
	line := func(i int) contract.TraceEvent {
		return contract.TraceEvent{Time: time.Unix(int64(i), 0).UTC(), Type: "ADDED", Resource: "pods", Namespace: "a", Name: fmt.Sprintf("p%03d", i)}
	}
	size := func(ev contract.TraceEvent) int {
		b, _ := json.Marshal(ev)
		return len(b) + 1
	}
	one := size(line(0))
	tests := []struct {
		name   string
		max    int
		events int
		// want are the names the trace keeps, oldest first.
		want []string
	}{
		{"all fit", 10 * one, 3, []string{"p000", "p001", "p002"}},
		{"oldest dropped", 3 * one, 5, []string{"p002", "p003", "p004"}},
		{"just under one event", one - 1, 2, nil},
		{"many dropped, slice reclaimed", 2 * one, 100, []string{"p098", "p099"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTrace(tc.max)
			for i := range tc.events {
				tr.Add(line(i))
			}
			var buf bytes.Buffer
			if _, err := tr.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			if buf.Len() > tc.max {
				t.Errorf("trace of %d bytes, bound %d", buf.Len(), tc.max)
			}
			var got []string
			for l := range strings.Lines(buf.String()) {
				var ev contract.TraceEvent
				if err := json.Unmarshal([]byte(l), &ev); err != nil {
					t.Fatalf("line %q: %v", l, err)
				}
				got = append(got, ev.Name)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("events kept (-want +got):\n%s", d)
			}
		})
	}
}

func writeKubeconfig(t *testing.T, dir string, user *clientcmdapi.AuthInfo) {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://source.example:6443"}
	kc.AuthInfos["u"] = user
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	kc.CurrentContext = "c"
	if err := clientcmd.WriteToFile(*kc, filepath.Join(dir, contract.SourceKeyKubeconfig)); err != nil {
		t.Fatal(err)
	}
}

func TestRESTConfig(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	inCluster := env(map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"})
	tests := []struct {
		name     string
		files    func(t *testing.T, dir string)
		env      func(string) (string, bool)
		wantHost string
		wantErr  string
	}{
		{
			name:     "kubeconfig with a token",
			files:    func(t *testing.T, dir string) { writeKubeconfig(t, dir, &clientcmdapi.AuthInfo{Token: "secret"}) },
			env:      inCluster,
			wantHost: "https://source.example:6443",
		},
		{
			name: "kubeconfig naming a token file",
			files: func(t *testing.T, dir string) {
				writeKubeconfig(t, dir, &clientcmdapi.AuthInfo{TokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token"})
			},
			env:     inCluster,
			wantErr: `user "u" names a token file`,
		},
		{
			name: "kubeconfig running a plugin",
			files: func(t *testing.T, dir string) {
				writeKubeconfig(t, dir, &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "aws", APIVersion: "client.authentication.k8s.io/v1"}})
			},
			env:     inCluster,
			wantErr: `user "u" runs an exec credential plugin`,
		},
		{
			name: "token and CA: the cluster the simulator runs in",
			files: func(t *testing.T, dir string) {
				for _, k := range []string{contract.SourceKeyToken, contract.SourceKeyCACert} {
					if err := os.WriteFile(filepath.Join(dir, k), []byte("x"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			},
			env:      inCluster,
			wantHost: "https://10.0.0.1:443",
		},
		{
			name: "token without the cluster's address",
			files: func(t *testing.T, dir string) {
				for _, k := range []string{contract.SourceKeyToken, contract.SourceKeyCACert} {
					if err := os.WriteFile(filepath.Join(dir, k), []byte("x"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			},
			env:     env(nil),
			wantErr: "needs KUBERNETES_SERVICE_HOST",
		},
		{
			name:    "nothing",
			files:   func(*testing.T, string) {},
			env:     inCluster,
			wantErr: `has neither "kubeconfig" nor "token" and "ca.crt"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.files(t, dir)
			cfg, err := RESTConfig(dir, 20, tc.env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]any{"host": cfg.Host, "qps": cfg.QPS, "burst": cfg.Burst, "contentType": cfg.ContentType}
			want := map[string]any{"host": tc.wantHost, "qps": float32(20), "burst": 10, "contentType": "application/vnd.kubernetes.protobuf"}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("config (-want +got):\n%s", d)
			}
		})
	}
}
