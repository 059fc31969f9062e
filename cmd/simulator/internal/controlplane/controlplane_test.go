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

package controlplane

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/config"
)

func writeExecutable(t *testing.T, dir, name string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindBinaries(t *testing.T) {
	binDir := t.TempDir()
	want := Binaries{
		KubeAPIServer:         writeExecutable(t, binDir, KubeAPIServer, 0o755),
		KubeScheduler:         writeExecutable(t, binDir, SimScheduler, 0o755),
		KubeControllerManager: writeExecutable(t, binDir, KubeControllerManager, 0o755),
		Kwok:                  writeExecutable(t, binDir, Kwok, 0o755),
	}
	got, err := FindBinaries(binDir, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("binaries (-want +got):\n%s", diff)
	}
	// A shared runtime needs sim-control-plane too.
	if _, err := FindBinaries(binDir, true); err == nil || !strings.Contains(err.Error(), "no executable sim-control-plane") {
		t.Errorf("error = %v, want sim-control-plane missing reported", err)
	}
	shared := want
	shared.ControlPlane = writeExecutable(t, binDir, SimControlPlane, 0o755)
	if got, err := FindBinaries(binDir, true); err != nil || got != shared {
		t.Errorf("shared runtime: %+v, %v; want %+v", got, err, shared)
	}

	// An explicit directory is the only place looked at.
	partial := t.TempDir()
	writeExecutable(t, partial, KubeAPIServer, 0o755)
	writeExecutable(t, partial, SimScheduler, 0o644)
	t.Setenv("PATH", binDir)
	_, err = FindBinaries(partial, false)
	if err == nil || !strings.Contains(err.Error(), "no executable sim-scheduler") || !strings.Contains(err.Error(), "no executable kwok") {
		t.Errorf("error = %v, want sim-scheduler (not executable) and kwok (missing) reported", err)
	}

	// Without one, PATH (the test binary's directory holds none of them).
	got, err = FindBinaries("", false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("binaries from PATH (-want +got):\n%s", diff)
	}
}

func options(mutate func(*config.Options)) *config.Options {
	o := config.NewOptions()
	o.EtcdURL = "http://127.0.0.1:2379"
	o.CredentialsDir = "/creds"
	if mutate != nil {
		mutate(o)
	}
	return o
}

func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestKubeAPIServerSpec(t *testing.T) {
	tests := []struct {
		name string
		opts *config.Options
		want map[string]string
		// absent flags
		absent []string
	}{
		{
			name: "in a Pod",
			opts: options(nil),
			want: map[string]string{
				"bind-address": "0.0.0.0", "secure-port": "3131", "etcd-prefix": "/registry",
				"client-ca-file": "/creds/ca.crt", "tls-cert-file": "/creds/apiserver.crt",
				"service-account-key-file": "/creds/sa.pub", "service-account-signing-key-file": "/creds/sa.key",
				"authorization-mode": "RBAC", "disable-admission-plugins": "ServiceAccount,TaintNodesByCondition,StorageObjectInUseProtection",
				"etcd-count-metric-poll-period": "0",
			},
			// etcdstore writes kube-apiserver's default storage: protobuf,
			// not encrypted.
			absent: []string{"advertise-address", "cors-allowed-origins", "storage-media-type", "encryption-provider-config"},
		},
		{
			name: "loopback, CORS",
			opts: options(func(o *config.Options) {
				o.BindAddress = "127.0.0.1"
				o.EtcdPrefix = "/simulators/ns/a/uid"
				o.CORSAllowedOrigins = []string{"http://localhost:3000", "https://ui.example.com"}
			}),
			want: map[string]string{
				"bind-address": "127.0.0.1", "advertise-address": "127.0.0.1", "etcd-prefix": "/simulators/ns/a/uid",
				"cors-allowed-origins": `^http://localhost:3000$,^https://ui\.example\.com$`,
			},
		},
		{
			name: "explicit advertise address",
			opts: options(func(o *config.Options) { o.AdvertiseAddress = "10.0.0.7" }),
			want: map[string]string{"advertise-address": "10.0.0.7"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := KubeAPIServerSpec(tc.opts, "/bin/kube-apiserver")
			if !slices.Contains(spec.Env, "GOGC=50") {
				t.Errorf("environment %v, want GOGC=50", spec.Env)
			}
			for name, want := range tc.want {
				if got, ok := flagValue(spec.Args, name); !ok || got != want {
					t.Errorf("--%s = %q (set: %v), want %q", name, got, ok, want)
				}
			}
			for _, name := range tc.absent {
				if got, ok := flagValue(spec.Args, name); ok {
					t.Errorf("--%s = %q, want it unset", name, got)
				}
			}
		})
	}
}

func TestKwokSpec(t *testing.T) {
	l := Layout{Dir: "/data"}
	spec := KwokSpec(options(nil), "/bin/kwok", l, l.AdminKubeconfig())
	if got, _ := flagValue(spec.Args, "server-address"); got != "127.0.0.1:10247" {
		t.Errorf("--server-address = %q, want 127.0.0.1:10247", got)
	}
	if got, _ := flagValue(spec.Args, "manage-nodes-with-annotation-selector"); got != "kwok.x-k8s.io/node=fake" {
		t.Errorf("--manage-nodes-with-annotation-selector = %q", got)
	}
	// No Leases: kwok then plays the Pods of a Node from the moment it sees it.
	if got, _ := flagValue(spec.Args, "node-lease-duration-seconds"); got != "0" {
		t.Errorf("--node-lease-duration-seconds = %q, want 0", got)
	}
	// Warnings and errors only: not a line for each object it plays.
	if got, _ := flagValue(spec.Args, "v"); got != "WARN" {
		t.Errorf("--v = %q, want WARN", got)
	}
	spec = KwokSpec(options(func(o *config.Options) { o.KwokPort = 0 }), "/bin/kwok", l, l.AdminKubeconfig())
	if got, ok := flagValue(spec.Args, "server-address"); ok {
		t.Errorf("--server-address = %q with port 0, want no server", got)
	}
	// kwok's --config is a list, read as CSV: a path with a comma (a test's
	// temporary directory, "TestX/a,_b") stays one path, as kwok reads it.
	for _, dir := range []string{"/data", "/tmp/TestX/a,_b", `/tmp/say "hi"`} {
		got, _ := flagValue(KwokSpec(options(nil), "/bin/kwok", Layout{Dir: dir}, "/kubeconfig").Args, "config")
		fs := pflag.NewFlagSet("kwok", pflag.ContinueOnError)
		paths := fs.StringSlice("config", nil, "")
		if err := fs.Parse([]string{"--config=" + got}); err != nil {
			t.Fatalf("--config=%s: %v", got, err)
		}
		if want := []string{filepath.Join(dir, "kwok.yaml")}; !slices.Equal(*paths, want) {
			t.Errorf("--config=%s reads as %q, want %q", got, *paths, want)
		}
	}
}

func TestKubeControllerManagerSpec(t *testing.T) {
	spec := KubeControllerManagerSpec(options(nil), "/bin/kcm", Layout{Dir: "/data"}, "/data/admin.kubeconfig")
	got, _ := flagValue(spec.Args, "controllers")
	on := strings.Split(got, ",")
	// What a sandbox's workloads, volumes and scheduling need; not what
	// would fight kwok.
	// A Node's conditions become taints, as in a cluster.
	for _, c := range []string{"deployment-controller", "replicaset-controller", "garbage-collector-controller", "node-lifecycle-controller",
		"namespace-controller", "persistentvolume-binder-controller", "disruption-controller", "resourceclaim-controller"} {
		if !slices.Contains(on, c) {
			t.Errorf("--controllers=%s does not run %s", got, c)
		}
	}
	for _, c := range []string{"*", "node-ipam-controller", "ttl-controller", "endpoints-controller"} {
		if slices.Contains(on, c) {
			t.Errorf("--controllers=%s runs %s", got, c)
		}
	}
	if !slices.Contains(spec.Env, "GOGC=50") {
		t.Errorf("environment %v, want GOGC=50", spec.Env)
	}
	for flag, want := range map[string]string{
		"kubeconfig":                       "/data/admin.kubeconfig",
		"service-account-private-key-file": "/creds/sa.key",
		"root-ca-file":                     "/creds/ca.crt",
		"leader-elect":                     "false",
		"node-monitor-grace-period":        "87600h0m0s",
		"node-startup-grace-period":        "87600h0m0s",
	} {
		if got, _ := flagValue(spec.Args, flag); got != want {
			t.Errorf("--%s = %q, want %q", flag, got, want)
		}
	}
}

// TestSharedRuntimeSpec: one sim-control-plane process, each
// component with the arguments of its own child.
func TestSharedRuntimeSpec(t *testing.T) {
	o, l := options(nil), Layout{Dir: "/data"}
	bins := Binaries{KubeAPIServer: "/bin/kube-apiserver", KubeScheduler: "/bin/sim-scheduler", KubeControllerManager: "/bin/kcm", Kwok: "/bin/kwok",
		ControlPlane: "/bin/sim-control-plane"}
	spec := SharedRuntimeSpec(o, bins, l)
	if spec.Path != "/bin/sim-control-plane" || spec.Name != SharedRuntime || !slices.Contains(spec.Env, "GOGC=50") {
		t.Errorf("spec %s %s %v, want control-plane /bin/sim-control-plane with GOGC=50", spec.Name, spec.Path, spec.Env)
	}
	// kube-controller-manager and kwok wait for kube-apiserver's readiness
	// but for the hooks the simulator seeds, as its own check does.
	// The components reach kube-apiserver within the process, as the
	// admin.
	want := []string{"--kubeconfig=/data/in-process.kubeconfig",
		"--in-process-server=http://kube-apiserver.in-process", "--in-process-client-certificate=/creds/admin.crt",
		"--ready-excludes=poststarthook/rbac/bootstrap-roles,poststarthook/scheduling/bootstrap-system-priority-classes",
		"--hold-socket=/data/control-plane.sock", KubeAPIServer}
	want = append(want, KubeAPIServerSpec(o, "").Args...)
	want = append(want, "---", KubeControllerManager)
	want = append(want, KubeControllerManagerSpec(o, "", l, "/data/in-process.kubeconfig").Args...)
	want = append(want, "---", Kwok)
	want = append(want, KwokSpec(o, "", l, "/data/in-process.kubeconfig").Args...)
	want = append(want, "---", SimScheduler)
	want = append(want, KubeSchedulerSpec(o, "", l).Args...)
	if diff := cmp.Diff(want, spec.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}

func TestWriteFiles(t *testing.T) {
	l := Layout{Dir: t.TempDir()}
	o := options(func(o *config.Options) { o.KubeAPIPort = 4444 })
	if err := WriteFiles(o, l); err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.LoadFromFile(l.AdminKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := kc.Contexts[kc.CurrentContext]
	if ctx == nil {
		t.Fatalf("admin kubeconfig has no current context: %+v", kc)
	}
	cluster, user := kc.Clusters[ctx.Cluster], kc.AuthInfos[ctx.AuthInfo]
	if cluster.Server != "https://127.0.0.1:4444" || cluster.CertificateAuthority != "/creds/ca.crt" ||
		user.ClientCertificate != "/creds/admin.crt" || user.ClientKey != "/creds/admin.key" {
		t.Errorf("admin kubeconfig: cluster %+v, user %+v", cluster, user)
	}

	// The in-process kubeconfig names the in-process server and no
	// credentials: client-go then sends through the process's default
	// transport.
	local, err := clientcmd.BuildConfigFromFlags("", l.InProcessKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	if local.Host != InProcessServer || local.CertFile != "" || local.KeyFile != "" || local.CAFile != "" || local.BearerToken != "" {
		t.Errorf("in-process kubeconfig: %+v", local)
	}

	data, err := os.ReadFile(l.KwokConfig())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	configs := 0
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var stage struct {
			APIVersion, Kind string
			Metadata         struct{ Name string }
			Spec             struct {
				ResourceRef struct{ Kind string } `json:"resourceRef"`
			}
			Options struct {
				PodsOnNodeSyncParallelism int `json:"podsOnNodeSyncParallelism"`
			}
		}
		if err := yaml.Unmarshal([]byte(doc), &stage); err != nil {
			t.Fatalf("stage document does not parse: %v\n%s", err, doc)
		}
		if stage.APIVersion == "config.kwok.x-k8s.io/v1alpha1" && stage.Kind == "KwokConfiguration" {
			// kwok's own options, beside the stages. kwok does not default
			// the options a file leaves out: without workers to list a new
			// Node's Pods, those bound before kwok saw the Node never run.
			configs++
			if stage.Options.PodsOnNodeSyncParallelism < 1 {
				t.Errorf("podsOnNodeSyncParallelism = %d, want at least 1", stage.Options.PodsOnNodeSyncParallelism)
			}
			continue
		}
		if stage.APIVersion != "kwok.x-k8s.io/v1alpha1" || stage.Kind != "Stage" || stage.Spec.ResourceRef.Kind == "" {
			t.Errorf("not a Stage: %+v", stage)
		}
		names = append(names, stage.Metadata.Name)
	}
	if configs != 1 {
		t.Errorf("%d KwokConfigurations, want 1", configs)
	}
	want := []string{"simulator-node-ready", "simulator-pod-delete", "simulator-pod-running"}
	slices.Sort(names)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
}
