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

// Package controlplane knows how the simulator's children are run: where
// their binaries are, the files they need in the data directory, and their
// command lines.
package controlplane

import (
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/bootstrapseed"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/config"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/supervisor"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// Names of the children and of their binaries.
const (
	KubeAPIServer         = "kube-apiserver"
	KubeScheduler         = "kube-scheduler"
	KubeControllerManager = "kube-controller-manager"
	Kwok                  = "kwok"
	// SimScheduler is the binary of the kube-scheduler child: kube-scheduler
	// that records every plugin's results (cmd/sim-scheduler).
	SimScheduler = "sim-scheduler"
	// SimControlPlane is the binary of a shared runtime: the four in one
	// process (cmd/sim-scheduler/control-plane).
	SimControlPlane = "sim-control-plane"
)

// The inner cluster's fixed network settings.
const (
	ServiceClusterIPRange = "10.96.0.0/16"
	// PodCIDR is where kwok takes the IPs of pods on nodes without a
	// podCIDR of their own.
	PodCIDR              = "10.244.0.0/16"
	ServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"
)

// FakeNodeAnnotation marks the nodes kwok manages (the kwok convention).
const FakeNodeAnnotation = "kwok.x-k8s.io/node"

// disabledAdmissionPlugins need controllers the simulator does not run:
// ServiceAccount would reject pods until a token controller made the
// "default" ServiceAccount; TaintNodesByCondition taints every new node
// NotReady, even one made Ready (nodepools), and the node lifecycle
// controller would then write each of thousands of Nodes once more to lift
// the taint; the PV/PVC protection finalizers are only removed by their
// controllers.
var disabledAdmissionPlugins = []string{"ServiceAccount", "TaintNodesByCondition", "StorageObjectInUseProtection"}

//go:embed kwok-stages.yaml
var kwokStages []byte

// Binaries are the paths of the children's executables.
type Binaries struct {
	KubeAPIServer, KubeScheduler, KubeControllerManager, Kwok string
	// ControlPlane is sim-control-plane's, looked for with a shared
	// runtime only.
	ControlPlane string
}

// FindBinaries looks for the children's executables in binDir, or, when it
// is empty, next to the running executable, then in PATH; with
// sharedRuntime, sim-control-plane's too.
func FindBinaries(binDir string, sharedRuntime bool) (Binaries, error) {
	var errs []error
	find := func(name string) string {
		p, err := findBinary(binDir, name)
		if err != nil {
			errs = append(errs, err)
		}
		return p
	}
	b := Binaries{
		KubeAPIServer:         find(KubeAPIServer),
		KubeScheduler:         find(SimScheduler),
		KubeControllerManager: find(KubeControllerManager),
		Kwok:                  find(Kwok),
	}
	if sharedRuntime {
		b.ControlPlane = find(SimControlPlane)
	}
	return b, errors.Join(errs...)
}

func findBinary(binDir, name string) (string, error) {
	if binDir != "" {
		p := filepath.Join(binDir, name)
		if !isExecutable(p) {
			return "", fmt.Errorf("%s: no executable %s in %s", contract.EnvBinDir, name, binDir)
		}
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), name); isExecutable(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("no executable %s next to the simulator or in PATH: %w", name, err)
	}
	return p, nil
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// Layout names the files of the data directory.
type Layout struct{ Dir string }

// AdminKubeconfig is the kubeconfig of the admin client certificate,
// used by kube-scheduler and kwok.
func (l Layout) AdminKubeconfig() string { return filepath.Join(l.Dir, "admin.kubeconfig") }

// InProcessKubeconfig names InProcessServer, with no credentials: the
// kubeconfig of the components that run in the shared runtime's process
// beside kube-apiserver, which serves them there (see SharedRuntimeSpec).
func (l Layout) InProcessKubeconfig() string { return filepath.Join(l.Dir, "in-process.kubeconfig") }

// InProcessServer is the URL at which the shared runtime's kube-apiserver
// serves the components in its process, without a network. Plain HTTP: the
// bytes never leave the process, and client-go sends requests to a server
// without TLS through the process's default transport, which the shared
// runtime makes its own.
const InProcessServer = "http://kube-apiserver.in-process"

// SchedulerConfig is the KubeSchedulerConfiguration kube-scheduler runs.
func (l Layout) SchedulerConfig() string { return filepath.Join(l.Dir, "kube-scheduler.yaml") }

// SchedulerConfigSet is the configuration last set through the simulator's
// API, kept so that a restarted simulator runs it again; absent while the
// simulator's own is in effect.
func (l Layout) SchedulerConfigSet() string { return filepath.Join(l.Dir, "kube-scheduler.set") }

// SchedulingResults is where the scheduler keeps the full result of each
// Pod's latest scheduling attempt, for the simulator's HTTP API.
func (l Layout) SchedulingResults() string { return filepath.Join(l.Dir, "scheduling-results") }

// KwokConfig holds the kwok controller's stages.
func (l Layout) KwokConfig() string { return filepath.Join(l.Dir, "kwok.yaml") }

// HoldSocket is the shared runtime's Unix socket on which the simulator
// holds one of its components stopped (HoldOverSocket).
func (l Layout) HoldSocket() string { return filepath.Join(l.Dir, "control-plane.sock") }

// localHost is the address to reach a server listening on bindAddress from
// inside the Pod.
func localHost(bindAddress string) string {
	ip := net.ParseIP(bindAddress)
	if ip == nil || ip.IsUnspecified() {
		return "127.0.0.1"
	}
	return bindAddress
}

// AdminRESTConfig is a client config for the inner kube-apiserver with the
// admin client certificate.
func AdminRESTConfig(o *config.Options) *rest.Config {
	return &rest.Config{
		Host: "https://" + net.JoinHostPort(localHost(o.BindAddress), strconv.Itoa(o.KubeAPIPort)),
		TLSClientConfig: rest.TLSClientConfig{
			CAFile:   o.Credential(contract.FileCACert),
			CertFile: o.Credential(contract.FileAdminCert),
			KeyFile:  o.Credential(contract.FileAdminKey),
		},
		QPS:   config.ClientQPS,
		Burst: config.ClientBurst,
	}
}

// WriteFiles writes the admin and in-process kubeconfigs and the kwok
// configuration.
func WriteFiles(o *config.Options, l Layout) error {
	cfg := AdminRESTConfig(o)
	admin := &clientcmdapi.AuthInfo{ClientCertificate: cfg.CertFile, ClientKey: cfg.KeyFile}
	if err := writeKubeconfig(l.AdminKubeconfig(), &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthority: cfg.CAFile}, "admin", admin); err != nil {
		return fmt.Errorf("writing the admin kubeconfig: %w", err)
	}
	if err := writeKubeconfig(l.InProcessKubeconfig(), &clientcmdapi.Cluster{Server: InProcessServer}, "in-process", &clientcmdapi.AuthInfo{}); err != nil {
		return fmt.Errorf("writing the in-process kubeconfig: %w", err)
	}
	if err := os.WriteFile(l.KwokConfig(), kwokStages, 0o644); err != nil {
		return fmt.Errorf("writing the kwok configuration: %w", err)
	}
	return nil
}

// writeKubeconfig writes a kubeconfig of one context, "simulator": cluster
// as user.
func writeKubeconfig(path string, cluster *clientcmdapi.Cluster, userName string, user *clientcmdapi.AuthInfo) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["simulator"] = cluster
	kc.AuthInfos[userName] = user
	kc.Contexts["simulator"] = &clientcmdapi.Context{Cluster: "simulator", AuthInfo: userName}
	kc.CurrentContext = "simulator"
	return clientcmd.WriteToFile(*kc, path)
}

// KubeAPIServerSpec runs the inner kube-apiserver: client certificate
// authentication, RBAC, and only the admission plugins that need no
// controller.
func KubeAPIServerSpec(o *config.Options, bin string) supervisor.Spec {
	args := []string{
		"--bind-address=" + o.BindAddress,
		"--secure-port=" + strconv.Itoa(o.KubeAPIPort),
		"--etcd-servers=" + o.EtcdURL,
		"--etcd-prefix=" + o.EtcdPrefix,
		"--tls-cert-file=" + o.Credential(contract.FileServingCert),
		"--tls-private-key-file=" + o.Credential(contract.FileServingKey),
		"--client-ca-file=" + o.Credential(contract.FileCACert),
		"--authorization-mode=RBAC",
		"--service-account-issuer=" + ServiceAccountIssuer,
		"--service-account-key-file=" + o.Credential(contract.FileServiceAccountPub),
		"--service-account-signing-key-file=" + o.Credential(contract.FileServiceAccountKey),
		"--service-cluster-ip-range=" + ServiceClusterIPRange,
		"--disable-admission-plugins=" + strings.Join(disabledAdmissionPlugins, ","),
		"--allow-privileged=true",
		// Nothing inside the simulator uses the kubernetes Service's
		// endpoints, and a loopback advertise address (tests) is refused
		// unless nothing writes them.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
		"--watch-cache-sizes=" + uncachedResourceSizes(),
		// Its per-minute count of each resource's objects in etcd feeds a
		// metric nobody reads here, and without a watch cache each count
		// lists the resource's keys.
		"--etcd-count-metric-poll-period=0",
	}
	if ca, cert, key := o.EtcdTLSFiles(); ca != "" {
		args = append(args, "--etcd-cafile="+ca, "--etcd-certfile="+cert, "--etcd-keyfile="+key)
	}
	if addr := advertiseAddress(o); addr != "" {
		args = append(args, "--advertise-address="+addr)
	}
	if len(o.CORSAllowedOrigins) > 0 {
		// Validated with the options.
		exprs, _ := config.OriginRegexps(o.CORSAllowedOrigins)
		args = append(args, "--cors-allowed-origins="+strings.Join(exprs, ","))
	}
	return supervisor.Spec{Name: KubeAPIServer, Path: bin, Args: args, Env: []string{lowMemoryGC}}
}

// uncachedResources are the built-in resources the inner kube-apiserver
// serves from etcd, without a watch cache: all but Pods and Nodes, the two a
// simulator holds thousands of and that every component watches. An idle
// watch cache still wakes each second to send its bookmarks, and
// kube-controller-manager's garbage collector and quota controllers watch
// every resource, so kube-apiserver kept ~60 of them, each with its etcd
// watch and its goroutines: a third of an idle simulator's control plane
// CPU (issue 37, docs/performance.md). A resource with few objects and
// watchers costs no more read from etcd. Events are written by the
// thousand (one for each Pod the scheduler places) and watched by nothing
// here: a cache would only decode and hold each. Resources added by a later
// kube-apiserver get a watch cache until they are named here; custom
// resources always do.
var uncachedResources = map[string][]string{
	"": {"configmaps", "endpoints", "events", "limitranges", "namespaces", "persistentvolumeclaims", "persistentvolumes",
		"podtemplates", "replicationcontrollers", "resourcequotas", "secrets", "serviceaccounts", "services"},
	"admissionregistration.k8s.io": {"mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "mutatingwebhookconfigurations",
		"validatingadmissionpolicies", "validatingadmissionpolicybindings", "validatingwebhookconfigurations"},
	"apiextensions.k8s.io":         {"customresourcedefinitions"},
	"apiregistration.k8s.io":       {"apiservices"},
	"apps":                         {"controllerrevisions", "daemonsets", "deployments", "replicasets", "statefulsets"},
	"autoscaling":                  {"horizontalpodautoscalers"},
	"batch":                        {"cronjobs", "jobs"},
	"certificates.k8s.io":          {"certificatesigningrequests", "clustertrustbundles", "podcertificaterequests"},
	"coordination.k8s.io":          {"leases"},
	"discovery.k8s.io":             {"endpointslices"},
	"events.k8s.io":                {"events"},
	"flowcontrol.apiserver.k8s.io": {"flowschemas", "prioritylevelconfigurations"},
	"networking.k8s.io":            {"ingressclasses", "ingresses", "ipaddresses", "networkpolicies", "servicecidrs"},
	"node.k8s.io":                  {"runtimeclasses"},
	"policy":                       {"poddisruptionbudgets"},
	"rbac.authorization.k8s.io":    {"clusterrolebindings", "clusterroles", "rolebindings", "roles"},
	"resource.k8s.io":              {"deviceclasses", "devicetaintrules", "resourceclaims", "resourceclaimtemplates", "resourceslices"},
	"scheduling.k8s.io":            {"priorityclasses"},
	"storage.k8s.io":               {"csidrivers", "csinodes", "csistoragecapacities", "storageclasses", "volumeattachments", "volumeattributesclasses"},
	"storagemigration.k8s.io":      {"storageversionmigrations"},
}

// uncachedResourceSizes is --watch-cache-sizes for uncachedResources: size
// 0 turns a resource's watch cache off.
func uncachedResourceSizes() string {
	var sizes []string
	for _, group := range slices.Sorted(maps.Keys(uncachedResources)) {
		for _, resource := range uncachedResources[group] {
			gr := schema.GroupResource{Group: group, Resource: resource}
			sizes = append(sizes, gr.String()+"#0")
		}
	}
	return strings.Join(sizes, ",")
}

func advertiseAddress(o *config.Options) string {
	if o.AdvertiseAddress != "" {
		return o.AdvertiseAddress
	}
	if ip := net.ParseIP(o.BindAddress); ip != nil && !ip.IsUnspecified() {
		return o.BindAddress
	}
	return ""
}

// KubeSchedulerSpec runs sim-scheduler (kube-scheduler recording its
// plugins' results into the data directory) with the configuration in the data
// directory, which names the admin kubeconfig (see schedconfig). It serves
// on loopback with the simulator's serving certificate, so that the
// readiness check can verify it; it authenticates client certificates of
// the simulator CA itself and delegates tokens and authorization to the
// inner apiserver, never to whatever in-cluster credentials the Pod may
// have. The inner apiserver has no front proxy: nothing to look up.
func KubeSchedulerSpec(o *config.Options, bin string, l Layout) supervisor.Spec {
	return supervisor.Spec{Name: KubeScheduler, Path: bin, Args: []string{
		"--config=" + l.SchedulerConfig(),
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(o.SchedulerPort),
		"--tls-cert-file=" + o.Credential(contract.FileServingCert),
		"--tls-private-key-file=" + o.Credential(contract.FileServingKey),
		"--client-ca-file=" + o.Credential(contract.FileCACert),
		"--authentication-kubeconfig=" + l.AdminKubeconfig(),
		"--authentication-skip-lookup=true",
		"--authorization-kubeconfig=" + l.AdminKubeconfig(),
		"--leader-elect=false",
		"--profiling=false",
		"--results-dir=" + l.SchedulingResults(),
	}}
}

// controllers are the kube-controller-manager controllers a scheduler
// sandbox needs, and no more (each costs memory even idle): workloads make
// Pods (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs,
// ReplicationControllers), PDBs get the status preemption reads, volumes and
// DRA claims the scheduler waits for get made and bound, namespaces and
// garbage go, quotas get the status their admission needs, NoExecute
// taints evict, and a Node's conditions become the taints the scheduler
// reads (the node lifecycle controller, see NodeMonitorGracePeriod). Left
// out: what needs a real node, network or cloud (endpoints, attach/detach,
// node IPAM, TTL annotations: the TTL controller would write every Node
// again each time the cluster crosses 100, 500, 1,000 and 2,000 Nodes),
// certificates and tokens.
var controllers = []string{
	"clusterrole-aggregation-controller",
	"cronjob-controller",
	"daemonset-controller",
	"deployment-controller",
	"disruption-controller",
	"ephemeral-volume-controller",
	"garbage-collector-controller",
	"job-controller",
	"namespace-controller",
	"node-lifecycle-controller",
	"persistentvolume-binder-controller",
	"pod-garbage-collector-controller",
	"replicaset-controller",
	"replicationcontroller-controller",
	"resourceclaim-controller",
	"resourcequota-controller",
	"serviceaccount-controller",
	"statefulset-controller",
	"taint-eviction-controller",
	"ttl-after-finished-controller",
}

// lowMemoryGC makes a child's Go garbage collector run at half the default
// heap growth: an idle sandbox trades some CPU for memory (issue 13).
const lowMemoryGC = "GOGC=50"

// NodeMonitorGracePeriod is how long the node lifecycle controller waits for
// a Node's heartbeat before it marks the Node NotReady, then taints and
// evicts: longer than a simulator lives. Nothing heartbeats a fake Node: kwok
// holds no Lease for it (see KwokSpec), and a simulator's Node is as Ready as
// its status says, as in kube-scheduler-simulator. The controller still turns
// the conditions a user writes (Ready False, MemoryPressure, ...) into the
// taints a cluster's Nodes would get.
const NodeMonitorGracePeriod = 10 * 365 * 24 * time.Hour

// KubeControllerManagerSpec runs kube's controllers inside the simulator, so
// that workloads behave as in a cluster: Deployments make ReplicaSets make
// Pods for the scheduler, Jobs run, garbage is collected, namespaces go.
// It reaches kube-apiserver through kubeconfig.
func KubeControllerManagerSpec(o *config.Options, bin string, l Layout, kubeconfig string) supervisor.Spec {
	return supervisor.Spec{Name: KubeControllerManager, Path: bin, Args: []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + l.AdminKubeconfig(),
		"--authentication-skip-lookup=true",
		"--authorization-kubeconfig=" + l.AdminKubeconfig(),
		"--controllers=" + strings.Join(controllers, ","),
		"--root-ca-file=" + o.Credential(contract.FileCACert),
		"--service-account-private-key-file=" + o.Credential(contract.FileServiceAccountKey),
		"--cluster-signing-cert-file=" + o.Credential(contract.FileCACert),
		"--cluster-signing-key-file=" + o.Credential(contract.FileCAKey),
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		// Workloads arrive as fast as a scenario's timeline says, not at
		// the default client rate (20/s: 60 s for a Deployment of 1,200).
		"--kube-api-qps=" + strconv.Itoa(config.ClientQPS),
		"--kube-api-burst=" + strconv.Itoa(config.ClientBurst),
		"--node-monitor-grace-period=" + NodeMonitorGracePeriod.String(),
		"--node-startup-grace-period=" + NodeMonitorGracePeriod.String(),
		// Nothing reaches it: health is the supervisor's restarts.
		"--secure-port=0",
		"--profiling=false",
	}, Env: []string{lowMemoryGC}}
}

// KwokSpec runs the kwok controller for the nodes annotated
// kwok.x-k8s.io/node=fake, with the simulator's stages and no Node Leases.
// With Leases, kwok (v0.8.0) plays a Node's Pods only once its own cache
// holds the Lease it made, and skips for good the Pods bound before: a Node
// made Ready had to wait behind a taint that kwok then lifted, two more
// writes per Node (its Lease and the Node), and renewals after (33 a second
// for 5,000 Nodes). Without, kwok plays a Node's Pods as soon as it sees the
// Node, those bound before it saw it too (it lists them then), and a
// restarted kwok takes its Nodes back at once rather than when the old
// Leases expire. It reaches kube-apiserver through kubeconfig. It logs
// warnings and errors only: its INFO is a line for each object it plays,
// ten thousand in an hour's trace replayed at 60×, written through the
// control plane's one output pipe, and with them the replay's events fell
// seconds behind at the same CPU (max lag 1.6 and 2.3 s; 0.3–0.8 s in
// three runs without).
func KwokSpec(o *config.Options, bin string, l Layout, kubeconfig string) supervisor.Spec {
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--config=" + csvField(l.KwokConfig()),
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + FakeNodeAnnotation + "=fake",
		"--manage-nodes-with-label-selector=",
		"--cidr=" + PodCIDR,
		"--node-lease-duration-seconds=0",
		"--v=WARN",
	}
	if o.KwokPort != 0 {
		args = append(args, "--server-address=127.0.0.1:"+strconv.Itoa(o.KwokPort))
	}
	return supervisor.Spec{Name: Kwok, Path: bin, Args: args}
}

// csvField is s as one field of a flag that takes a comma-separated list
// (pflag reads it as CSV, kwok's --config among them): quoted when it holds
// a comma or a quote, which a path may.
func csvField(s string) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	// A strings.Builder takes every write: Flush has no error to report.
	_ = w.Write([]string{s})
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// SharedRuntime is the name of the one child that runs kube-apiserver,
// kube-controller-manager, kwok and sim-scheduler in one process.
const SharedRuntime = "control-plane"

// SharedRuntimeSpec runs kube-apiserver, kube-controller-manager, kwok and
// sim-scheduler in one process, sim-control-plane, each with the
// arguments its own child would have: one Go runtime rather than four
// (issue 37: an idle simulator's memory and CPU). sim-scheduler restarts
// on SIGHUP, in the process; the others restart in it when they return,
// and with it when one ends it. kube-apiserver serves the others within
// the process, as the admin (InProcessServer): no TLS, HTTP/2 or sockets
// between them (a 60× scenario replay: the process's CPU 14% less). The
// scheduler's configuration names the in-process kubeconfig (see app).
func SharedRuntimeSpec(o *config.Options, bins Binaries, l Layout) supervisor.Spec {
	// The others start once kube-apiserver is ready (sim-scheduler once it
	// serves), as their own children would: ready but for the hooks whose
	// objects the simulator seeds, as the simulator's own check has it once
	// seeded (kube-controller-manager and kwok are admins: they need
	// neither the bootstrap roles nor the priority classes).
	args := []string{
		"--kubeconfig=" + l.InProcessKubeconfig(),
		"--in-process-server=" + InProcessServer,
		"--in-process-client-certificate=" + o.Credential(contract.FileAdminCert),
		"--ready-excludes=" + strings.Join(bootstrapseed.Hooks, ","),
		"--hold-socket=" + l.HoldSocket(),
	}
	for i, c := range []struct {
		name string
		spec supervisor.Spec
	}{
		{KubeAPIServer, KubeAPIServerSpec(o, bins.KubeAPIServer)},
		{KubeControllerManager, KubeControllerManagerSpec(o, bins.KubeControllerManager, l, l.InProcessKubeconfig())},
		{Kwok, KwokSpec(o, bins.Kwok, l, l.InProcessKubeconfig())},
		{SimScheduler, KubeSchedulerSpec(o, bins.KubeScheduler, l)},
	} {
		if i > 0 {
			args = append(args, "---")
		}
		args = append(args, c.name)
		args = append(args, c.spec.Args...)
	}
	return supervisor.Spec{Name: SharedRuntime, Path: bins.ControlPlane, Args: args, Env: []string{lowMemoryGC}}
}
