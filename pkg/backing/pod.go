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

// Package backing builds the host objects behind a simulator: its Pod,
// Service and credentials Secret. The reconciler creates them; the registry
// dry-runs the Pod to reject a broken podTemplate at apply time.
package backing

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// AnnotationDefaultContainer names the container kubectl logs, exec and
// attach use when none is given.
const AnnotationDefaultContainer = "kubectl.kubernetes.io/default-container"

// PodUser is the unprivileged user (and group) the Pod runs as: the
// distroless "nonroot" user. The Pod passes the restricted Pod Security
// Standard, so it runs in namespaces that enforce it.
const PodUser = 65532

// Labels returns the labels that tie a host object to its simulator.
func Labels(s *v1alpha1.Simulator) map[string]string {
	return map[string]string{sim.LabelSimulator: s.Name}
}

// EtcdPrefix is the simulator's key prefix in an external etcd. The UID keeps
// a recreated simulator of the same name from seeing its predecessor's data.
func EtcdPrefix(s *v1alpha1.Simulator) string {
	return fmt.Sprintf("/simulators/%s/%s/%s", s.Namespace, s.Name, s.UID)
}

// KubeAPIServerURL is the in-cluster URL of a simulator's inner kube-apiserver.
func KubeAPIServerURL(name, namespace string, port int32) string {
	return fmt.Sprintf("https://%s.%s.svc:%d", sim.SimulatorServiceName(name), namespace, port)
}

// PodGeneration reads the simulator generation a Pod was made from; 0 if none.
func PodGeneration(pod *corev1.Pod) int64 {
	g, _ := strconv.ParseInt(pod.Labels[sim.LabelGeneration], 10, 64)
	return g
}

// Pod builds the Pod of the simulator's current generation, where place
// says: the generated "simulator" (and, without etcdURL, "etcd")
// containers, with podTemplate strategic-merged on top so that what the
// user wrote wins. The Secrets and claim it mounts are looked up in its own
// namespace.
func Pod(s *v1alpha1.Simulator, place Placement) (*corev1.Pod, error) {
	pod := &corev1.Pod{
		// Status and routing trust only the Pods the simulator owns.
		ObjectMeta: place.objectMeta(s, sim.SimulatorPodName(s.Name, s.Generation)),
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{simulatorContainer(s)},
			Volumes: []corev1.Volume{{
				Name: contract.CredentialsVolume,
				VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
					// Readable by the Pod's group (fsGroup), not by others.
					SecretName: sim.SimulatorSecretName(s.Name), DefaultMode: ptr.To[int32](0o440),
				}},
			}, {
				Name: contract.TmpVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}},
			}},
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr.To(true),
				RunAsUser:      ptr.To[int64](PodUser),
				RunAsGroup:     ptr.To[int64](PodUser),
				FSGroup:        ptr.To[int64](PodUser),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			// The simulator needs no host API access, and its own apiserver
			// would only be confused by the host's service links.
			AutomountServiceAccountToken:  ptr.To(false),
			EnableServiceLinks:            ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](10),
		},
	}
	if s.Spec.EtcdURL == "" {
		// etcd first: the kubelet starts a Pod's containers one after the
		// other (~0.5 s apart on the local node), and kube-apiserver, which
		// waits for etcd to listen before it starts (cmd/simulator), then
		// finds it listening, or nearly (issue 13, create → Available).
		pod.Spec.Containers = append([]corev1.Container{etcdContainer(s)}, pod.Spec.Containers...)
		data := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		if claim := s.Spec.EtcdPersistentVolumeClaimName; claim != "" {
			// The user's claim: the inner objects outlive the Pod.
			data = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}
		}
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: contract.EtcdDataVolume, VolumeSource: data})
	}
	if name := s.Spec.EtcdTLSSecretName; name != "" {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{
			Name: contract.EtcdTLSVolume,
			// Group-readable: the Pod's fsGroup is the user it runs as.
			VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name, DefaultMode: ptr.To[int32](0o440)}},
		})
	}
	if src := s.Spec.Source; src != nil {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{
			Name:         contract.SourceVolume,
			VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: src.SecretName, DefaultMode: ptr.To[int32](0o440)}},
		})
	}
	if t := s.Spec.PodTemplate; t != nil {
		merged, err := mergeSpec(pod.Spec, t.Spec)
		if err != nil {
			return nil, fmt.Errorf("merging spec.podTemplate: %w", err)
		}
		pod.Spec = merged
		pod.Labels = mergeMaps(t.Labels, nil)
		pod.Annotations = mergeMaps(t.Annotations, nil)
	}
	// Our labels win over the template's: the reconciler finds Pods by them.
	pod.Labels = mergeMaps(pod.Labels, Labels(s))
	// kubectl logs and exec default to the simulator container, not to the
	// first one, unless the template says otherwise.
	pod.Annotations = mergeMaps(map[string]string{AnnotationDefaultContainer: contract.SimulatorContainer}, pod.Annotations)
	pod.Labels[sim.LabelGeneration] = strconv.FormatInt(s.Generation, 10)
	return pod, nil
}

// Source is what the simulator is told of spec.source: the Secret is
// mounted at contract.SourceDir.
func Source(src *v1alpha1.SimulatorSource) *contract.Source {
	out := &contract.Source{
		Mode: string(src.Mode), Dir: contract.SourceDir, Namespaces: src.Namespaces, QPS: src.QPS, Workloads: src.Workloads,
	}
	if src.LabelSelector != nil {
		// Validated: the selector converts.
		if sel, err := metav1.LabelSelectorAsSelector(src.LabelSelector); err == nil {
			out.LabelSelector = sel.String()
		}
	}
	return out
}

// Container returns the container of spec named name, nil if it has none.
func Container(spec *corev1.PodSpec, name string) *corev1.Container {
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	return nil
}

func simulatorContainer(s *v1alpha1.Simulator) corev1.Container {
	etcdURL := s.Spec.EtcdURL
	if etcdURL == "" {
		etcdURL = fmt.Sprintf("http://127.0.0.1:%d", contract.EtcdClientPort)
	}
	environment := contract.Environment{
		KubeAPIPort:         int(s.Spec.KubeAPIServerPort),
		Port:                int(s.Spec.SimulatorServerPort),
		EtcdURL:             etcdURL,
		CredentialsDir:      contract.CredentialsDir,
		DataDir:             contract.PodDataDir,
		EtcdPrefix:          EtcdPrefix(s),
		SchedulerConfigPath: s.Spec.KubeSchedulerConfigurationPath,
		CORSAllowedOrigins:  s.Spec.CORSAllowedOriginList,
	}
	mounts := []corev1.VolumeMount{
		{Name: contract.CredentialsVolume, MountPath: contract.CredentialsDir, ReadOnly: true},
		{Name: contract.TmpVolume, MountPath: contract.TmpDir},
	}
	if s.Spec.EtcdTLSSecretName != "" {
		environment.EtcdTLSDir = contract.EtcdTLSDir
		mounts = append(mounts, corev1.VolumeMount{Name: contract.EtcdTLSVolume, MountPath: contract.EtcdTLSDir, ReadOnly: true})
	}
	if src := s.Spec.Source; src != nil {
		environment.Source = Source(src)
		mounts = append(mounts, corev1.VolumeMount{Name: contract.SourceVolume, MountPath: contract.SourceDir, ReadOnly: true})
	}
	var env []corev1.EnvVar
	for _, v := range environment.Vars() {
		env = append(env, corev1.EnvVar{Name: v.Name, Value: v.Value})
	}
	return corev1.Container{
		Name:            contract.SimulatorContainer,
		Image:           s.Spec.Image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Env:             env,
		Ports: []corev1.ContainerPort{
			{Name: "kube-apiserver", ContainerPort: s.Spec.KubeAPIServerPort},
			{Name: "simulator", ContainerPort: s.Spec.SimulatorServerPort},
		},
		// Starting, the shortest period, and each probe waits up to a period
		// for the checks to pass (ReadyzWaitParam): the kubelet sees the
		// simulator ready as soon as it is, not up to a period later (and,
		// the startup probe passed, it runs the readiness probe at once).
		// Started, a probe every readinessPeriod: each costs the simulator
		// a TLS handshake and kube-apiserver's /readyz, which at one a
		// second took 16 of an idle simulator's 70 millicores on a node
		// (BenchmarkDensity, 12 simulators). The timeouts leave 4 s beyond
		// the wait for a loaded machine: at 2 s, three simulators
		// scheduling 500 Nodes each on 2 CPUs went unready (Creating) in
		// the middle of a scenario. No number of failed startup probes
		// kills the container: a start that is slow on a busy node is
		// still a start.
		StartupProbe: &corev1.Probe{
			ProbeHandler:     readyz(s),
			PeriodSeconds:    1,
			TimeoutSeconds:   5,
			FailureThreshold: math.MaxInt32,
		},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:     readyz(s),
			PeriodSeconds:    readinessPeriod,
			TimeoutSeconds:   5,
			FailureThreshold: 3,
		},
		VolumeMounts:    mounts,
		SecurityContext: restrictedContainer(),
		Resources:       requests(simulatorRequests),
	}
}

// readinessPeriod is the seconds between readiness probes of a started
// simulator: one that stops answering is unready 3 periods later.
const readinessPeriod = 10

// readyz is the probe of the simulator container: its /readyz. The
// simulator server is TLS; the kubelet does not verify probe certificates,
// and /readyz needs no credentials.
func readyz(s *v1alpha1.Simulator) corev1.ProbeHandler {
	return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: contract.ReadinessProbePath, Port: intstr.FromInt32(s.Spec.SimulatorServerPort), Scheme: corev1.URISchemeHTTPS,
	}}
}

// The containers' requests: memory adds up to the Pod's measured idle
// working set (188 MiB, its control plane one process, docs/performance.md;
// its split between the two containers is an estimate, etcd being the
// smaller), so that the Pod is not BestEffort, first to be evicted, and the
// scheduler places it where it fits; CPU is small enough that 40 fit on a
// node of 2 CPUs. No limits: a busy simulator may use what is free. A
// podTemplate may set others (its fields win).
var (
	simulatorRequests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("25m"), corev1.ResourceMemory: resource.MustParse("140Mi")}
	etcdRequests      = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("48Mi")}
)

func requests(rl corev1.ResourceList) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: rl.DeepCopy()}
}

// restrictedContainer is what the restricted Pod Security Standard asks of
// each container beyond the Pod's own security context.
func restrictedContainer() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// etcdContainer is the Pod's own etcd. A Pod that replaces another on the
// same claim starts it on the other's data: a member with data takes its
// identity from its WAL and ignores the --initial-cluster flags, and its
// name and peer URLs are etcd's defaults ("default", localhost), the same in
// every Pod whatever its IP.
func etcdContainer(s *v1alpha1.Simulator) corev1.Container {
	client := fmt.Sprintf("http://127.0.0.1:%d", contract.EtcdClientPort)
	return corev1.Container{
		Name:            contract.EtcdContainer,
		Image:           s.Spec.Image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"etcd"},
		Args: append([]string{
			"--data-dir=" + contract.EtcdDataDir,
			"--listen-client-urls=" + client,
			"--advertise-client-urls=" + client,
			fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", contract.EtcdPeerPort),
		}, contract.EtcdFlags()...),
		VolumeMounts:    []corev1.VolumeMount{{Name: contract.EtcdDataVolume, MountPath: contract.EtcdDataDir}},
		SecurityContext: restrictedContainer(),
		Resources:       requests(etcdRequests),
	}
}

// mergeSpec strategic-merges the template's spec onto the generated one:
// containers and volumes merge by name, and the template's fields win.
func mergeSpec(generated, template corev1.PodSpec) (corev1.PodSpec, error) {
	original, err := json.Marshal(generated)
	if err != nil {
		return corev1.PodSpec{}, err
	}
	patch, err := json.Marshal(template)
	if err != nil {
		return corev1.PodSpec{}, err
	}
	// A field the template leaves empty serializes as null, which in a
	// strategic merge patch means "delete": drop those, keep what it sets.
	var patchMap map[string]interface{}
	if err := json.Unmarshal(patch, &patchMap); err != nil {
		return corev1.PodSpec{}, err
	}
	dropNulls(patchMap)
	if patch, err = json.Marshal(patchMap); err != nil {
		return corev1.PodSpec{}, err
	}
	merged, err := strategicpatch.StrategicMergePatch(original, patch, corev1.PodSpec{})
	if err != nil {
		return corev1.PodSpec{}, err
	}
	var out corev1.PodSpec
	if err := json.Unmarshal(merged, &out); err != nil {
		return corev1.PodSpec{}, err
	}
	return out, nil
}

func dropNulls(v interface{}) {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, e := range t {
			if e == nil {
				delete(t, k)
				continue
			}
			dropNulls(e)
		}
	case []interface{}:
		for _, e := range t {
			dropNulls(e)
		}
	}
}

// mergeMaps returns a copy of base with over's entries on top.
func mergeMaps(base, over map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}
