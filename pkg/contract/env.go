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

package contract

import (
	"strconv"
	"strings"
)

// Environment is the simulator container's configuration as the server
// (or a test standing in for the kubelet) gives it: the values of the Env*
// variables. A zero field is left out, and the simulator takes its default.
type Environment struct {
	KubeAPIPort         int
	Port                int
	EtcdURL             string
	EtcdPrefix          string
	CredentialsDir      string
	SchedulerConfigPath string
	CORSAllowedOrigins  []string
	EtcdTLSDir          string
	// Source is what to mirror (spec.source); nil means nothing.
	Source *Source
	// DataDir is where the simulator keeps what it generates and records;
	// empty means a temporary directory, gone when the simulator ends (in
	// a Pod, PodDataDir).
	DataDir string

	// Outside a Pod (the simulator as host processes), where the fixed
	// ports, addresses and paths of a Pod do not hold.
	BinDir                 string
	SchedulerPort          int
	KwokPort               int
	BindAddress            string
	AdvertiseAddress       string
	TerminationMessagePath string
	// SeparateProcesses runs kube-apiserver, kube-controller-manager, kwok
	// and sim-scheduler each as a process of its own rather than in one
	// (sim-control-plane, the default).
	SeparateProcesses bool
}

// Var is one environment variable.
type Var struct {
	Name, Value string
}

// String is the variable as os/exec takes it: NAME=value.
func (v Var) String() string { return v.Name + "=" + v.Value }

// Vars is the environment in a fixed order, without the zero fields.
func (e Environment) Vars() []Var {
	var out []Var
	str := func(name, value string) {
		if value != "" {
			out = append(out, Var{Name: name, Value: value})
		}
	}
	port := func(name string, value int) {
		if value != 0 {
			out = append(out, Var{Name: name, Value: strconv.Itoa(value)})
		}
	}
	port(EnvKubeAPIPort, e.KubeAPIPort)
	port(EnvPort, e.Port)
	str(EnvEtcdURL, e.EtcdURL)
	str(EnvCredentialsDir, e.CredentialsDir)
	str(EnvEtcdPrefix, e.EtcdPrefix)
	str(EnvSchedulerConfigPath, e.SchedulerConfigPath)
	str(EnvCORSAllowedOriginList, strings.Join(e.CORSAllowedOrigins, ","))
	str(EnvEtcdTLSDir, e.EtcdTLSDir)
	if e.Source != nil {
		str(EnvSource, e.Source.String())
	}
	str(EnvBinDir, e.BinDir)
	str(EnvDataDir, e.DataDir)
	port(EnvSchedulerPort, e.SchedulerPort)
	port(EnvKwokPort, e.KwokPort)
	str(EnvBindAddress, e.BindAddress)
	str(EnvAdvertiseAddress, e.AdvertiseAddress)
	str(EnvTerminationLog, e.TerminationMessagePath)
	if e.SeparateProcesses {
		str(EnvSharedRuntime, "false")
	}
	return out
}

// Strings is the environment as os/exec takes it.
func (e Environment) Strings() []string {
	vars := e.Vars()
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = v.String()
	}
	return out
}

// ServerOwnedEnv are the variables whose values the server alone decides in
// a Pod: a podTemplate may not set them, since they point the simulator at
// its data and credentials.
var ServerOwnedEnv = []string{EnvEtcdURL, EnvEtcdPrefix, EnvEtcdTLSDir, EnvCredentialsDir, EnvSource}
