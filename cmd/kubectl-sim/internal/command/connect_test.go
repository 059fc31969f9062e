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

package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfig builds a config of clusters, users and contexts given as
// name → server, name → token and name → "cluster/user".
func kubeconfig(current string, clusters, users, contexts map[string]string) *clientcmdapi.Config {
	cfg := clientcmdapi.NewConfig()
	for name, server := range clusters {
		// The host's CA, which its proxy's URL shares.
		ca, _, _ := strings.Cut(server, "/apis/")
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: []byte("ca of " + ca)}
	}
	for name, token := range users {
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	}
	for name, ref := range contexts {
		cluster, user, _ := strings.Cut(ref, "/")
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: cluster, AuthInfo: user, Namespace: "default"}
	}
	cfg.CurrentContext = current
	return cfg
}

// The simulator's kubeconfig as simulators/kubeconfig hands it out.
func served(token string) *clientcmdapi.Config {
	return kubeconfig("simulator-team-a-example",
		map[string]string{"simulator-team-a-example": "https://host:6443/apis/sim.x-k8s.io/v1alpha1/namespaces/team-a/simulators/example/proxy"},
		map[string]string{"simulator-team-a-example": token},
		map[string]string{"simulator-team-a-example": "simulator-team-a-example/simulator-team-a-example"})
}

func TestMergeContext(t *testing.T) {
	proxy := "https://host:6443/apis/sim.x-k8s.io/v1alpha1/namespaces/team-a/simulators/example/proxy"
	host := func() *clientcmdapi.Config {
		return kubeconfig("host", map[string]string{"host": "https://host:6443"}, map[string]string{"me": "my-token"}, map[string]string{"host": "host/me"})
	}
	for _, tc := range []struct {
		name    string
		start   *clientcmdapi.Config
		sim     *clientcmdapi.Config
		context string
		use     bool
		want    *clientcmdapi.Config
		wantErr string
	}{{
		name:    "into an empty kubeconfig",
		start:   clientcmdapi.NewConfig(),
		sim:     served("t1"),
		context: "sim",
		want:    kubeconfig("", map[string]string{"sim": proxy}, map[string]string{"sim": "t1"}, map[string]string{"sim": "sim/sim"}),
	}, {
		name:    "beside the host's entries, which stay, and the current context with them",
		start:   host(),
		sim:     served("t1"),
		context: "simulator-team-a-example",
		want: kubeconfig("host",
			map[string]string{"host": "https://host:6443", "simulator-team-a-example": proxy},
			map[string]string{"me": "my-token", "simulator-team-a-example": "t1"},
			map[string]string{"host": "host/me", "simulator-team-a-example": "simulator-team-a-example/simulator-team-a-example"}),
	}, {
		name:    "--use: the new context becomes the current one",
		start:   host(),
		sim:     served("t1"),
		context: "sim",
		use:     true,
		want: kubeconfig("sim",
			map[string]string{"host": "https://host:6443", "sim": proxy},
			map[string]string{"me": "my-token", "sim": "t1"},
			map[string]string{"host": "host/me", "sim": "sim/sim"}),
	}, {
		name: "connecting again replaces the expired token",
		start: kubeconfig("host",
			map[string]string{"host": "https://host:6443", "sim": proxy},
			map[string]string{"me": "my-token", "sim": "expired"},
			map[string]string{"host": "host/me", "sim": "sim/sim"}),
		sim:     served("fresh"),
		context: "sim",
		want: kubeconfig("host",
			map[string]string{"host": "https://host:6443", "sim": proxy},
			map[string]string{"me": "my-token", "sim": "fresh"},
			map[string]string{"host": "host/me", "sim": "sim/sim"}),
	}, {
		name: "host credentials: the context names the host's user and an earlier connect's token goes",
		start: kubeconfig("host",
			map[string]string{"host": "https://host:6443", "sim": proxy},
			map[string]string{"me": "my-token", "sim": "old"},
			map[string]string{"host": "host/me", "sim": "sim/sim"}),
		sim: func() *clientcmdapi.Config {
			cfg, err := HostCredentialsConfig(host(), "host", proxy)
			if err != nil {
				t.Fatal(err)
			}
			return cfg
		}(),
		context: "sim",
		want: kubeconfig("host",
			map[string]string{"host": "https://host:6443", "sim": proxy},
			map[string]string{"me": "my-token"},
			map[string]string{"host": "host/me", "sim": "sim/me"}),
	}, {
		name:    "a user the kubeconfig does not have",
		start:   clientcmdapi.NewConfig(),
		sim:     kubeconfig("s", map[string]string{"s": proxy}, nil, map[string]string{"s": "s/nobody"}),
		context: "sim",
		wantErr: `user "nobody" is not in your kubeconfig`,
	}, {
		name:    "a served kubeconfig without a current context",
		start:   clientcmdapi.NewConfig(),
		sim:     kubeconfig("", map[string]string{"s": proxy}, nil, nil),
		context: "sim",
		wantErr: "no current context",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.start.DeepCopy()
			got, err := MergeContext(tc.start, tc.sim, tc.context, tc.use)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("MergeContext: %v, want an error saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("MergeContext (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.start); diff != "" {
				t.Errorf("MergeContext changed its start (-before +after):\n%s", diff)
			}
		})
	}
}

func TestHostCredentialsConfigErrors(t *testing.T) {
	host := kubeconfig("host", map[string]string{"host": "https://host:6443"}, map[string]string{"me": "t"},
		map[string]string{"host": "host/me", "lost": "gone/me", "anon": "host/nobody"})
	for _, tc := range []struct{ context, want string }{
		{"", "needs a current context"},
		{"other", `context "other" is not in your kubeconfig`},
		{"lost", `cluster "gone" of context "lost"`},
		{"anon", `user "nobody" of context "anon"`},
	} {
		if _, err := HostCredentialsConfig(host, tc.context, "https://x"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("HostCredentialsConfig(%q): %v, want an error saying %q", tc.context, err, tc.want)
		}
	}
}

// TestMergeIntoFiles writes the merge as connect does (ModifyConfig, as
// kubectl config set-context) with KUBECONFIG naming two files: a new
// context goes to the first, one connected before is replaced in the file
// it was read from, and neither file loses what it held.
func TestMergeIntoFiles(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	host := kubeconfig("host", map[string]string{"host": "https://host:6443"}, map[string]string{"me": "my-token"}, map[string]string{"host": "host/me"})
	old := kubeconfig("", map[string]string{"old": "https://old"}, map[string]string{"old": "expired"}, map[string]string{"old": "old/old"})
	for path, cfg := range map[string]*clientcmdapi.Config{first: host, second: old} {
		if err := clientcmd.WriteToFile(*cfg, path); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(clientcmd.RecommendedConfigPathEnvVar, first+string(os.PathListSeparator)+second)
	for _, c := range []struct{ context, token string }{{"new", "t-new"}, {"old", "t-fresh"}} {
		pathOptions := clientcmd.NewDefaultPathOptions()
		start, err := pathOptions.GetStartingConfig()
		if err != nil {
			t.Fatal(err)
		}
		merged, err := MergeContext(start, served(c.token), c.context, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := clientcmd.ModifyConfig(pathOptions, *merged, true); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]map[string]string{ // file → user → token
		first:  {"me": "my-token", "new": "t-new"},
		second: {"old": "t-fresh"},
	}
	for path, users := range want {
		cfg, err := clientcmd.LoadFromFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for name, u := range cfg.AuthInfos {
			got[name] = u.Token
		}
		if diff := cmp.Diff(users, got); diff != "" {
			t.Errorf("users of %s (-want +got):\n%s", filepath.Base(path), diff)
		}
		for name, ctx := range cfg.Contexts {
			if _, ok := cfg.Clusters[ctx.Cluster]; !ok {
				t.Errorf("%s: context %s names cluster %s, not in the file", filepath.Base(path), name, ctx.Cluster)
			}
		}
		if path == first && cfg.CurrentContext != "host" {
			t.Errorf("current context %q, want host's, unchanged", cfg.CurrentContext)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour: "1h", 90 * time.Minute: "1h30m", 10 * time.Minute: "10m", 24 * time.Hour: "24h", 90 * time.Second: "1m30s",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
