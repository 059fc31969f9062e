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

package config

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

func lookupFrom(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

func TestOptionsFromFlagsAndEnv(t *testing.T) {
	defaults := func(mutate func(o *Options)) *Options {
		o := NewOptions()
		o.EtcdURL = "http://127.0.0.1:2379"
		if mutate != nil {
			mutate(o)
		}
		return o
	}
	tests := []struct {
		name    string
		flags   []string
		env     map[string]string
		want    *Options
		wantErr string
	}{
		{
			name: "defaults",
			env:  map[string]string{contract.EnvEtcdURL: "http://127.0.0.1:2379"},
			want: defaults(nil),
		},
		{
			name: "KEP-159 variables",
			env: map[string]string{
				contract.EnvKubeAPIPort:           "4000",
				contract.EnvPort:                  "4001",
				contract.EnvSchedulerConfigPath:   "/config/scheduler.yaml",
				contract.EnvEtcdURL:               "http://etcd:2379",
				contract.EnvCORSAllowedOriginList: "http://localhost:3000, https://sim.example.com ,",
			},
			want: defaults(func(o *Options) {
				o.KubeAPIPort, o.Port = 4000, 4001
				o.SchedulerConfigPath = "/config/scheduler.yaml"
				o.EtcdURL = "http://etcd:2379"
				o.CORSAllowedOrigins = []string{"http://localhost:3000", "https://sim.example.com"}
			}),
		},
		{
			name: "our variables",
			env: map[string]string{
				contract.EnvEtcdURL:          "http://127.0.0.1:2379",
				contract.EnvCredentialsDir:   "/creds",
				contract.EnvEtcdPrefix:       "/simulators/ns/name/uid",
				contract.EnvBinDir:           "/bin",
				contract.EnvDataDir:          "/data",
				contract.EnvSchedulerPort:    "20259",
				contract.EnvKwokPort:         "0",
				contract.EnvBindAddress:      "127.0.0.1",
				contract.EnvAdvertiseAddress: "10.1.2.3",
				contract.EnvSharedRuntime:    "false",
			},
			want: defaults(func(o *Options) {
				o.SharedRuntime = false
				o.CredentialsDir = "/creds"
				o.EtcdPrefix = "/simulators/ns/name/uid"
				o.BinDir, o.DataDir = "/bin", "/data"
				o.SchedulerPort, o.KwokPort = 20259, 0
				o.BindAddress, o.AdvertiseAddress = "127.0.0.1", "10.1.2.3"
			}),
		},
		{
			name:  "flags without env",
			flags: []string{"--kube-api-port=5000", "--etcd-url=http://a:2379", "--cors-allowed-origins=http://x:1,http://y:2"},
			want: defaults(func(o *Options) {
				o.KubeAPIPort = 5000
				o.EtcdURL = "http://a:2379"
				o.CORSAllowedOrigins = []string{"http://x:1", "http://y:2"}
			}),
		},
		{
			name:  "env wins over flags, empty env does not",
			flags: []string{"--kube-api-port=5000", "--port=5001", "--etcd-url=http://a:2379"},
			env:   map[string]string{contract.EnvKubeAPIPort: "6000", contract.EnvPort: "", contract.EnvEtcdURL: "http://b:2379"},
			want: defaults(func(o *Options) {
				o.KubeAPIPort, o.Port = 6000, 5001
				o.EtcdURL = "http://b:2379"
			}),
		},
		{
			name:    "shared runtime not a boolean",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvSharedRuntime: "yes please"},
			wantErr: `SIMULATOR_SHARED_RUNTIME="yes please": not true or false`,
		},
		{
			name:    "port not a number",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvKubeAPIPort: "31x"},
			wantErr: `KUBE_API_PORT="31x": not a port number`,
		},
		{
			name:    "port out of range",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvPort: "70000"},
			wantErr: "PORT: 70000 is not a port number",
		},
		{
			name:    "scheduler port may not be 0",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvSchedulerPort: "0"},
			wantErr: "SIMULATOR_SCHEDULER_PORT: 0 is not a port number",
		},
		{
			name:    "ports collide",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvPort: "3131"},
			wantErr: "PORT: port 3131 is also KUBE_API_PORT",
		},
		{
			name:    "etcd URL required",
			wantErr: "KUBE_SCHEDULER_SIMULATOR_ETCD_URL is required",
		},
		{
			name:    "etcd URL not http",
			env:     map[string]string{contract.EnvEtcdURL: "127.0.0.1:2379"},
			wantErr: `"127.0.0.1:2379" is not an http(s) URL`,
		},
		{
			name:    "etcd prefix relative",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvEtcdPrefix: "registry"},
			wantErr: `SIMULATOR_ETCD_PREFIX: "registry" must start with /`,
		},
		{
			name:    "bad bind address",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvBindAddress: "localhost"},
			wantErr: `SIMULATOR_BIND_ADDRESS: "localhost" is not an IP address`,
		},
		{
			name: "source",
			env: map[string]string{
				contract.EnvEtcdURL: "http://e:2379",
				contract.EnvSource:  `{"mode":"Sync","dir":"/etc/simulator/source","namespaces":["team"],"labelSelector":"app in (a,b)"}`,
			},
			want: defaults(func(o *Options) {
				o.EtcdURL = "http://e:2379"
				o.Source = &contract.Source{Mode: contract.SourceModeSync, Dir: "/etc/simulator/source", Namespaces: []string{"team"},
					LabelSelector: "app in (a,b)", QPS: contract.DefaultSourceQPS}
			}),
		},
		{
			name:    "source not JSON",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvSource: "Once"},
			wantErr: "SIMULATOR_SOURCE: invalid character",
		},
		{
			name:    "source of an unknown mode",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvSource: `{"mode":"Twice","dir":"/s"}`},
			wantErr: `SIMULATOR_SOURCE: mode "Twice"`,
		},
		{
			name:    "source with a bad selector",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvSource: `{"mode":"Once","dir":"/s","labelSelector":"app in ("}`},
			wantErr: `SIMULATOR_SOURCE: labelSelector "app in ("`,
		},
		{
			name:    "source with a bad namespace",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvSource: `{"mode":"Once","dir":"/s","namespaces":["Team"]}`},
			wantErr: `SIMULATOR_SOURCE: namespace "Team"`,
		},
		{
			name:    "source dir relative",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvSource: `{"mode":"Once","dir":"source"}`},
			wantErr: `SIMULATOR_SOURCE: dir "source" is not an absolute path`,
		},
		{
			name:    "bad origin",
			env:     map[string]string{contract.EnvEtcdURL: "http://e:2379", contract.EnvCORSAllowedOriginList: "localhost:3000"},
			wantErr: "CORS_ALLOWED_ORIGIN_LIST: origin",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(tc.flags); err != nil {
				t.Fatalf("parsing flags: %v", err)
			}
			err := o.ApplyEnv(lookupFrom(tc.env))
			if err == nil {
				o.Complete()
				err = o.Validate()
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tc.want, o); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOriginRegexps(t *testing.T) {
	tests := []struct {
		name      string
		origins   []string
		want      []string
		match     []string
		noMatch   []string
		wantError bool
	}{
		{
			name:    "host and port",
			origins: []string{"http://localhost:3000"},
			want:    []string{`^http://localhost:3000$`},
			match:   []string{"http://localhost:3000"},
			noMatch: []string{"http://localhost:30001", "https://localhost:3000", "http://localhost:3000.evil.com", "xhttp://localhost:3000", "http://localhost"},
		},
		{
			name:    "dots are escaped, trailing slash and case normalized",
			origins: []string{"HTTPS://Sim.Example.com/"},
			want:    []string{`^https://sim\.example\.com$`},
			match:   []string{"https://sim.example.com"},
			noMatch: []string{"https://simxexample.com", "https://a.sim.example.com", "https://sim.example.com.evil"},
		},
		{
			name:    "several",
			origins: []string{"http://a:1", "http://b:2"},
			want:    []string{`^http://a:1$`, `^http://b:2$`},
			match:   []string{"http://a:1", "http://b:2"},
			noMatch: []string{"http://a:2"},
		},
		{name: "no scheme", origins: []string{"localhost:3000"}, wantError: true},
		{name: "ftp", origins: []string{"ftp://a"}, wantError: true},
		{name: "path", origins: []string{"http://a/b"}, wantError: true},
		{name: "wildcard", origins: []string{"*"}, wantError: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := OriginRegexps(tc.origins)
			if tc.wantError {
				if err == nil {
					t.Fatalf("want an error, got %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("regexps (-want +got):\n%s", diff)
			}
			compiled, err := CompileOrigins(tc.origins)
			if err != nil {
				t.Fatal(err)
			}
			matches := func(s string) bool {
				for _, re := range compiled {
					if re.MatchString(s) {
						return true
					}
				}
				return false
			}
			for _, s := range tc.match {
				if !matches(s) {
					t.Errorf("%q does not match %q", s, got)
				}
			}
			for _, s := range tc.noMatch {
				if matches(s) {
					t.Errorf("%q matches %q", s, got)
				}
			}
		})
	}
}

// TestEnvironmentRoundTrip: what the server writes into the simulator
// container's environment (contract.Environment) is what the simulator
// reads back, field for field, so the two sides of the contract cannot
// drift apart. Every field of the Environment is set here: a new one fails
// until the simulator reads it.
func TestEnvironmentRoundTrip(t *testing.T) {
	env := contract.Environment{
		KubeAPIPort:            4000,
		Port:                   4001,
		EtcdURL:                "https://etcd.example:2379",
		EtcdPrefix:             "/simulators/ns/name/uid",
		CredentialsDir:         "/creds",
		SchedulerConfigPath:    "/config/scheduler.yaml",
		CORSAllowedOrigins:     []string{"http://localhost:3000", "https://sim.example.com"},
		EtcdTLSDir:             "/etcd-tls",
		BinDir:                 "/bin",
		DataDir:                "/data",
		SchedulerPort:          20259,
		KwokPort:               20247,
		BindAddress:            "127.0.0.1",
		AdvertiseAddress:       "10.1.2.3",
		TerminationMessagePath: "/termination-log",
		SeparateProcesses:      true,
		Source:                 &contract.Source{Mode: contract.SourceModeOnce, Dir: "/source", Namespaces: []string{"a"}, LabelSelector: "x=y", QPS: 7, Workloads: true},
	}
	v := reflect.ValueOf(env)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("set contract.Environment.%s in this test", v.Type().Field(i).Name)
		}
	}
	vars := map[string]string{}
	for _, kv := range env.Vars() {
		vars[kv.Name] = kv.Value
	}
	o := NewOptions()
	if err := o.ApplyEnv(lookupFrom(vars)); err != nil {
		t.Fatal(err)
	}
	o.Complete()
	got := contract.Environment{
		KubeAPIPort: o.KubeAPIPort, Port: o.Port, EtcdURL: o.EtcdURL, EtcdPrefix: o.EtcdPrefix,
		CredentialsDir: o.CredentialsDir, SchedulerConfigPath: o.SchedulerConfigPath,
		CORSAllowedOrigins: o.CORSAllowedOrigins, EtcdTLSDir: o.EtcdTLSDir, BinDir: o.BinDir,
		DataDir: o.DataDir, SchedulerPort: o.SchedulerPort, KwokPort: o.KwokPort,
		BindAddress: o.BindAddress, AdvertiseAddress: o.AdvertiseAddress,
		TerminationMessagePath: o.TerminationMessagePath, Source: o.Source, SeparateProcesses: !o.SharedRuntime,
	}
	if diff := cmp.Diff(env, got); diff != "" {
		t.Errorf("the simulator read back (-written +read):\n%s", diff)
	}
}
