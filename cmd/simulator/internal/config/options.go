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

// Package config reads the simulator's configuration: the KEP-159
// environment contract, our additions to it, and the equivalent flags.
// An environment variable that is set (non-empty) wins over its flag.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// The client rate of the control plane's components (the simulator's own
// clients, kube-controller-manager, and sim-scheduler unless its
// configuration sets one): workloads and traces arrive as fast as a
// scenario says, not at client-go's defaults (kube-scheduler's 50 a second
// held a trace replayed at 60x, 83 Pods a second, behind its bindings).
const (
	ClientQPS   = 200
	ClientBurst = 400
)

// Options is the simulator's configuration.
type Options struct {
	// KubeAPIPort is the inner kube-apiserver's secure port.
	KubeAPIPort int
	// Port is the simulator server's port.
	Port int
	// SchedulerConfigPath is a KubeSchedulerConfiguration file; empty means
	// kube-scheduler's defaults.
	SchedulerConfigPath string
	// EtcdURL is the etcd the inner kube-apiserver stores into.
	EtcdURL string
	// CORSAllowedOrigins are origins such as http://localhost:3000.
	CORSAllowedOrigins []string

	// CredentialsDir holds the files named File*.
	CredentialsDir string
	// EtcdPrefix is the inner kube-apiserver's etcd key prefix.
	EtcdPrefix string
	// EtcdTLSDir, when set, holds the inner kube-apiserver's etcd client
	// certificate (tls.crt, tls.key) and the CA of etcd (ca.crt), as a
	// kubernetes.io/tls Secret mounted there.
	EtcdTLSDir string
	// BinDir holds kube-apiserver, kube-scheduler and kwok; empty means the
	// simulator binary's own directory, then PATH.
	BinDir string
	// DataDir is scratch space for generated files; empty means a
	// temporary directory, removed on exit.
	DataDir string
	// SchedulerPort is kube-scheduler's secure port, served on loopback.
	SchedulerPort int
	// KwokPort is the kwok controller's server port on loopback; 0 turns
	// the server off.
	KwokPort int
	// BindAddress is where the inner kube-apiserver and the simulator
	// server listen.
	BindAddress string
	// AdvertiseAddress is the inner kube-apiserver's advertised address;
	// empty means the bind address if it is a specific one, else
	// kube-apiserver's own choice (the Pod IP).
	AdvertiseAddress string
	// TerminationMessagePath receives why the simulator ended, when the
	// file exists (the kubelet makes it; see package termination).
	TerminationMessagePath string
	// Source is the cluster the simulator mirrors (spec.source); nil for
	// none. Only the environment sets it: the server decides it.
	Source *contract.Source
	// SharedRuntime runs kube-apiserver, kube-controller-manager, kwok and
	// sim-scheduler as one process (sim-control-plane) instead of four: the
	// default, one Go runtime's memory rather than four (issue 37).
	SharedRuntime bool
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		KubeAPIPort:    contract.DefaultKubeAPIPort,
		Port:           contract.DefaultPort,
		CredentialsDir: contract.CredentialsDir,
		EtcdPrefix:     contract.DefaultEtcdPrefix,
		SchedulerPort:  contract.SchedulerPort,
		KwokPort:       contract.KwokPort,
		BindAddress:    contract.DefaultBindAddress,
		SharedRuntime:  true,

		TerminationMessagePath: contract.DefaultTerminationMessagePath,
	}
}

// AddFlags binds the options to flags. The environment, applied after
// parsing by ApplyEnv, wins over them.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.KubeAPIPort, "kube-api-port", o.KubeAPIPort, "Secure port of the inner kube-apiserver (env "+contract.EnvKubeAPIPort+").")
	fs.IntVar(&o.Port, "port", o.Port, "Port of the simulator server (env "+contract.EnvPort+").")
	fs.StringVar(&o.SchedulerConfigPath, "kube-scheduler-config", o.SchedulerConfigPath, "KubeSchedulerConfiguration file; empty means kube-scheduler's defaults (env "+contract.EnvSchedulerConfigPath+").")
	fs.StringVar(&o.EtcdURL, "etcd-url", o.EtcdURL, "etcd URL of the inner kube-apiserver (env "+contract.EnvEtcdURL+").")
	fs.StringSliceVar(&o.CORSAllowedOrigins, "cors-allowed-origins", o.CORSAllowedOrigins, "Origins allowed by CORS, such as http://localhost:3000 (env "+contract.EnvCORSAllowedOriginList+", comma-separated).")
	fs.StringVar(&o.CredentialsDir, "credentials-dir", o.CredentialsDir, "Directory of the simulator's CA, serving, admin and service-account key files (env "+contract.EnvCredentialsDir+").")
	fs.StringVar(&o.EtcdPrefix, "etcd-prefix", o.EtcdPrefix, "etcd key prefix of the inner kube-apiserver (env "+contract.EnvEtcdPrefix+").")
	fs.StringVar(&o.EtcdTLSDir, "etcd-tls-dir", o.EtcdTLSDir, "Directory of the etcd client certificate (tls.crt, tls.key) and etcd's CA (ca.crt) (env "+contract.EnvEtcdTLSDir+").")
	fs.StringVar(&o.BinDir, "bin-dir", o.BinDir, "Directory of kube-apiserver, kube-scheduler and kwok; empty means this binary's directory, then PATH (env "+contract.EnvBinDir+").")
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Directory for generated files; empty means a temporary one (env "+contract.EnvDataDir+").")
	fs.IntVar(&o.SchedulerPort, "scheduler-port", o.SchedulerPort, "kube-scheduler's secure port on 127.0.0.1 (env "+contract.EnvSchedulerPort+").")
	fs.IntVar(&o.KwokPort, "kwok-port", o.KwokPort, "kwok controller's server port on 127.0.0.1; 0 disables it (env "+contract.EnvKwokPort+").")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "Address the inner kube-apiserver and the simulator server listen on (env "+contract.EnvBindAddress+").")
	fs.StringVar(&o.AdvertiseAddress, "advertise-address", o.AdvertiseAddress, "Advertised address of the inner kube-apiserver (env "+contract.EnvAdvertiseAddress+").")
	fs.BoolVar(&o.SharedRuntime, "shared-runtime", o.SharedRuntime, "Run kube-apiserver, kube-controller-manager, kwok and sim-scheduler as one process; false runs each as a process of its own (env "+contract.EnvSharedRuntime+").")
	fs.StringVar(&o.TerminationMessagePath, "termination-message-path", o.TerminationMessagePath, "File that receives why the simulator ended, written only if it exists (env "+contract.EnvTerminationLog+").")
}

// ApplyEnv overrides the options with the environment variables that are
// set to a non-empty value. lookup is os.LookupEnv in production.
func (o *Options) ApplyEnv(lookup func(string) (string, bool)) error {
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	var errs []error
	ints := []struct {
		name string
		dst  *int
	}{
		{contract.EnvKubeAPIPort, &o.KubeAPIPort},
		{contract.EnvPort, &o.Port},
		{contract.EnvSchedulerPort, &o.SchedulerPort},
		{contract.EnvKwokPort, &o.KwokPort},
	}
	for _, i := range ints {
		v, ok := get(i.name)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: not a port number", i.name, v))
			continue
		}
		*i.dst = n
	}
	strs := []struct {
		name string
		dst  *string
	}{
		{contract.EnvSchedulerConfigPath, &o.SchedulerConfigPath},
		{contract.EnvEtcdURL, &o.EtcdURL},
		{contract.EnvCredentialsDir, &o.CredentialsDir},
		{contract.EnvEtcdPrefix, &o.EtcdPrefix},
		{contract.EnvEtcdTLSDir, &o.EtcdTLSDir},
		{contract.EnvBinDir, &o.BinDir},
		{contract.EnvDataDir, &o.DataDir},
		{contract.EnvBindAddress, &o.BindAddress},
		{contract.EnvAdvertiseAddress, &o.AdvertiseAddress},
		{contract.EnvTerminationLog, &o.TerminationMessagePath},
	}
	for _, s := range strs {
		if v, ok := get(s.name); ok {
			*s.dst = v
		}
	}
	if v, ok := get(contract.EnvSharedRuntime); ok {
		shared, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: not true or false", contract.EnvSharedRuntime, v))
		}
		o.SharedRuntime = shared
	}
	if v, ok := get(contract.EnvCORSAllowedOriginList); ok {
		o.CORSAllowedOrigins = strings.Split(v, ",")
	}
	if v, ok := get(contract.EnvSource); ok {
		source, err := contract.ParseSource(v)
		if err != nil {
			errs = append(errs, err)
		}
		o.Source = source
	}
	return errors.Join(errs...)
}

// Complete normalizes the options: trims the origin list.
func (o *Options) Complete() {
	var origins []string
	for _, origin := range o.CORSAllowedOrigins {
		if origin = strings.TrimSpace(origin); origin != "" {
			origins = append(origins, origin)
		}
	}
	o.CORSAllowedOrigins = origins
}

// Validate reports every invalid option.
func (o *Options) Validate() error {
	var errs []error
	ports := []struct {
		name      string
		value     int
		allowZero bool
	}{
		{contract.EnvKubeAPIPort, o.KubeAPIPort, false},
		{contract.EnvPort, o.Port, false},
		{contract.EnvSchedulerPort, o.SchedulerPort, false},
		{contract.EnvKwokPort, o.KwokPort, true},
	}
	seen := map[int]string{}
	for _, p := range ports {
		if p.value == 0 && p.allowZero {
			continue
		}
		if p.value < 1 || p.value > 65535 {
			errs = append(errs, fmt.Errorf("%s: %d is not a port number (1-65535)", p.name, p.value))
			continue
		}
		if other, ok := seen[p.value]; ok {
			errs = append(errs, fmt.Errorf("%s: port %d is also %s", p.name, p.value, other))
		}
		seen[p.value] = p.name
	}
	if o.EtcdURL == "" {
		errs = append(errs, fmt.Errorf("%s is required", contract.EnvEtcdURL))
	} else {
		for _, u := range strings.Split(o.EtcdURL, ",") {
			if parsed, err := url.Parse(u); err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
				errs = append(errs, fmt.Errorf("%s: %q is not an http(s) URL", contract.EnvEtcdURL, u))
			}
		}
	}
	if !strings.HasPrefix(o.EtcdPrefix, "/") {
		errs = append(errs, fmt.Errorf("%s: %q must start with /", contract.EnvEtcdPrefix, o.EtcdPrefix))
	}
	if o.CredentialsDir == "" {
		errs = append(errs, fmt.Errorf("%s is required", contract.EnvCredentialsDir))
	}
	if net.ParseIP(o.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("%s: %q is not an IP address", contract.EnvBindAddress, o.BindAddress))
	}
	if o.AdvertiseAddress != "" && net.ParseIP(o.AdvertiseAddress) == nil {
		errs = append(errs, fmt.Errorf("%s: %q is not an IP address", contract.EnvAdvertiseAddress, o.AdvertiseAddress))
	}
	if _, err := OriginRegexps(o.CORSAllowedOrigins); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", contract.EnvCORSAllowedOriginList, err))
	}
	if o.Source != nil {
		errs = append(errs, validateSource(o.Source)...)
	}
	return errors.Join(errs...)
}

// validateSource reports what ParseSource leaves to the simulator: the
// selector and namespaces must be ones the source would take, the Secret's
// directory absolute.
func validateSource(s *contract.Source) []error {
	var errs []error
	if !filepath.IsAbs(s.Dir) {
		errs = append(errs, fmt.Errorf("%s: dir %q is not an absolute path", contract.EnvSource, s.Dir))
	}
	for _, ns := range s.Namespaces {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%s: namespace %q: %s", contract.EnvSource, ns, strings.Join(msgs, "; ")))
		}
	}
	if _, err := labels.Parse(s.LabelSelector); err != nil {
		errs = append(errs, fmt.Errorf("%s: labelSelector %q: %w", contract.EnvSource, s.LabelSelector, err))
	}
	return errs
}

// EtcdTLSFiles returns the paths of etcd's CA and of the etcd client
// certificate and key in EtcdTLSDir (a kubernetes.io/tls Secret's keys);
// empty when there is no EtcdTLSDir.
func (o *Options) EtcdTLSFiles() (ca, cert, key string) {
	if o.EtcdTLSDir == "" {
		return "", "", ""
	}
	return filepath.Join(o.EtcdTLSDir, contract.EtcdTLSCA), filepath.Join(o.EtcdTLSDir, contract.EtcdTLSCert), filepath.Join(o.EtcdTLSDir, contract.EtcdTLSKey)
}

// Credential returns the path of a credential file.
func (o *Options) Credential(file string) string {
	return filepath.Join(o.CredentialsDir, file)
}
