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

// Package contract is what sim-apiserver and the simulator image agree on:
// the simulator container's environment (KEP-159's variables and ours), the
// files of its credentials, the admin identity, the ports inside the Pod,
// the paths of the simulator server's API, and the reasons a simulator
// gives for ending. It is the only code the two share, and it imports the
// standard library alone, so that either side can change its own code
// without the other noticing, and a change here shows on both.
package contract

import "time"

// Environment variables of the simulator container: KEP-159's first, then ours.
const (
	EnvKubeAPIPort           = "KUBE_API_PORT"
	EnvPort                  = "PORT"
	EnvSchedulerConfigPath   = "KUBE_SCHEDULER_CONFIG_PATH"
	EnvEtcdURL               = "KUBE_SCHEDULER_SIMULATOR_ETCD_URL"
	EnvCORSAllowedOriginList = "CORS_ALLOWED_ORIGIN_LIST"

	EnvCredentialsDir   = "SIMULATOR_CREDENTIALS_DIR"
	EnvEtcdPrefix       = "SIMULATOR_ETCD_PREFIX"
	EnvEtcdTLSDir       = "SIMULATOR_ETCD_TLS_DIR"
	EnvBinDir           = "SIMULATOR_BIN_DIR"
	EnvDataDir          = "SIMULATOR_DATA_DIR"
	EnvSchedulerPort    = "SIMULATOR_SCHEDULER_PORT"
	EnvKwokPort         = "SIMULATOR_KWOK_PORT"
	EnvBindAddress      = "SIMULATOR_BIND_ADDRESS"
	EnvAdvertiseAddress = "SIMULATOR_ADVERTISE_ADDRESS"
	EnvTerminationLog   = "SIMULATOR_TERMINATION_MESSAGE_PATH"
	EnvSharedRuntime    = "SIMULATOR_SHARED_RUNTIME"
)

// Ports inside a simulator Pod. The first two are the KEP-159 defaults of
// the spec's ports; the others are fixed (the Pod is a network namespace of
// its own), and the spec's ports must not collide with them.
const (
	DefaultKubeAPIPort = 3131
	DefaultPort        = 1212
	EtcdClientPort     = 2379
	EtcdPeerPort       = 2380
	// SchedulerPort is kube-scheduler's usual secure port; tests that run
	// the simulator on a shared host move it.
	SchedulerPort = 10259
	// KwokPort is the port kwokctl gives the kwok controller.
	KwokPort = 10247
)

// DefaultBindAddress is where the inner kube-apiserver and the simulator
// server listen unless told otherwise.
const DefaultBindAddress = "0.0.0.0"

// DefaultEtcdPrefix is the inner kube-apiserver's etcd key prefix in the
// Pod's own etcd.
const DefaultEtcdPrefix = "/registry"

// The Pod's containers. A podTemplate container of the same name is merged
// into the generated one.
const (
	SimulatorContainer = "simulator"
	EtcdContainer      = "etcd"
)

// The Pod's volumes and where the simulator container mounts them. The
// server owns them: a podTemplate may not replace them or mount over them.
const (
	// CredentialsVolume holds the simulator's Secret (the File* names).
	CredentialsVolume = "credentials"
	CredentialsDir    = "/etc/simulator/credentials"
	// EtcdTLSVolume holds the Secret of spec.etcdTLSSecretName, the client
	// certificate for an external etcd (the EtcdTLS* names).
	EtcdTLSVolume = "etcd-tls"
	EtcdTLSDir    = "/etc/simulator/etcd-tls"
	// EtcdDataVolume is the etcd container's data.
	EtcdDataVolume = "etcd-data"
	EtcdDataDir    = "/var/lib/etcd"
	// TmpVolume is the simulator's scratch space, writable whatever the
	// image's /tmp.
	TmpVolume = "tmp"
	TmpDir    = "/tmp"
	// PodDataDir is the simulator's data directory in a Pod: in the tmp
	// volume, which outlives a restart of the simulator container, so that
	// the scheduler configuration set through its API and the scheduling
	// results survive one, as the inner objects do in the etcd container.
	PodDataDir = TmpDir + "/simulator"
)

// ServerOwnedVolumes are the Pod's volumes a podTemplate may not replace,
// and ServerOwnedDirs the simulator container's directories it may not
// mount over: they hold what the server mounts from Secrets.
var (
	ServerOwnedVolumes = []string{CredentialsVolume, EtcdDataVolume, EtcdTLSVolume, TmpVolume, SourceVolume}
	ServerOwnedDirs    = []string{CredentialsDir, EtcdTLSDir, SourceDir}
)

// Files of the credentials directory: the keys of the simulator's Secret.
const (
	FileCACert            = "ca.crt"
	FileCAKey             = "ca.key"
	FileServingCert       = "apiserver.crt"
	FileServingKey        = "apiserver.key"
	FileAdminCert         = "admin.crt"
	FileAdminKey          = "admin.key"
	FileServiceAccountKey = "sa.key"
	FileServiceAccountPub = "sa.pub"
)

// FileHopToken is the hop gate's token (PathHop): only a simulator hosted
// in another cluster has it, and without it the gate refuses every request.
const FileHopToken = "hop-token"

// CredentialFiles are the files every simulator's credentials hold: a
// Secret without one of them is incomplete.
var CredentialFiles = []string{
	FileCACert, FileCAKey, FileServingCert, FileServingKey,
	FileAdminCert, FileAdminKey, FileServiceAccountKey, FileServiceAccountPub,
}

// OptionalCredentialFiles are the files only some simulators' credentials
// hold. They are apart from CredentialFiles so that the Secrets made
// before them stay complete.
var OptionalCredentialFiles = []string{FileHopToken}

// Files of the etcd TLS directory: a kubernetes.io/tls Secret's keys.
const (
	EtcdTLSCA   = "ca.crt"
	EtcdTLSCert = "tls.crt"
	EtcdTLSKey  = "tls.key"
)

// The simulator's admin: the identity of the admin client certificate its
// credentials hold (sim-apiserver's, to act on the inner apiserver and on
// the simulator server). The simulator server serves its API to this
// identity alone; users reach it through the host (simulators/api), where
// host RBAC decides.
const (
	AdminUser  = "sim-admin"
	AdminGroup = "system:masters"
)

// Paths of the simulator server (PORT). Only PathHealthz and PathReadyz are
// open; the rest answer the admin alone, and the /api/ paths a request with
// the hop token too (PathHop).
const (
	PathHealthz           = "/healthz"
	PathReadyz            = "/readyz"
	PathSchedulerConfig   = "/api/v1/schedulerconfiguration"
	PathReset             = "/api/v1/reset"
	PathExport            = "/api/v1/export"
	PathImport            = "/api/v1/import"
	PathSchedulingResults = "/api/v1/schedulingresults"
	PathProcesses         = "/debug/processes"
)

// The hop gate: the route to the simulator through its hosting cluster's
// pods/proxy. That proxy connects with no client certificate and strips
// Authorization and Impersonate-*, so a request through it carries the
// token of FileHopToken and the identity to act as in headers of its own.
const (
	// PathHop is reverse-proxied to the inner kube-apiserver, without the
	// prefix, as the simulator's admin; the simulator's API (/api/...)
	// answers a request with the token too.
	PathHop = "/hop/kube/"
	// HeaderHopToken carries FileHopToken's content.
	HeaderHopToken = "X-Simulator-Hop-Token"
	// The identity the inner kube-apiserver acts as (its Impersonate-User,
	// -Uid, -Group and -Extra-<key>); a request's own Impersonate-* are
	// dropped.
	HeaderHopImpersonateUser        = "X-Simulator-Impersonate-User"
	HeaderHopImpersonateUID         = "X-Simulator-Impersonate-Uid"
	HeaderHopImpersonateGroup       = "X-Simulator-Impersonate-Group"
	HeaderHopImpersonateExtraPrefix = "X-Simulator-Impersonate-Extra-"
	// HeaderHop marks every answer of the simulator server (HopMark): an
	// answer through the hosting cluster without it came from the hosting
	// apiserver.
	HeaderHop = "X-Simulator-Hop"
	HopMark   = "1"
)

// ReadyzWaitParam makes PathReadyz hold its answer for up to a duration while
// a check fails and answer 200 as soon as all pass: a probe every second with
// ?wait=1s sees the simulator ready within a check interval, where a plain
// probe sees it up to a period later.
const ReadyzWaitParam = "wait"

// MaxReadyzWait bounds how long anyone (PathReadyz is open) may hold a
// request: the probe needs a period, 1 s.
const MaxReadyzWait = 2 * time.Second

// ReadinessProbePath is what the simulator container's readiness probe GETs:
// PathReadyz, waiting up to the probe's period for the checks to pass.
const ReadinessProbePath = PathReadyz + "?" + ReadyzWaitParam + "=1s"

// EtcdFlags are the etcd container's flags beyond its addresses and data
// directory.
//
// A member waits a random 1 to 10 heartbeats (of 100 ms) before it elects
// itself, and etcd serves nothing before: with --election-timeout=500, the
// least etcd accepts with that heartbeat, it waits 1 to 5, and the
// simulator's kube-apiserver, which waits for it, starts sooner. A cluster
// of one member never holds another election, and the heartbeat, which sets
// its idle CPU, is kept.
func EtcdFlags() []string {
	return []string{"--log-level=warn", "--election-timeout=500"}
}
