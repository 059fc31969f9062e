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

package backing

import (
	"slices"
	"sort"
	"testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

func simulator() *v1alpha1.Simulator {
	return &v1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "team-a", UID: "u1", Generation: 3},
		Spec: v1alpha1.SimulatorSpec{
			KubeAPIServerPort: 3131, SimulatorServerPort: 1212, Image: "sim.x-k8s.io/simulator:v1",
			CORSAllowedOriginList: []string{"http://a.example", "http://b.example"},
		},
	}
}

func containerNames(pod *corev1.Pod) []string {
	var names []string
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	return names
}

func envOf(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		out[e.Name] = e.Value
	}
	return out
}

func TestPodDefaults(t *testing.T) {
	s := simulator()
	pod, err := Pod(s, Local(s))
	if err != nil {
		t.Fatal(err)
	}
	if pod.Name != "sim-example-g3" || pod.Namespace != "team-a" {
		t.Errorf("pod is %s/%s", pod.Namespace, pod.Name)
	}
	if diff := cmp.Diff(map[string]string{sim.LabelSimulator: "example", sim.LabelGeneration: "3"}, pod.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	// etcd first: the kubelet starts them in this order.
	if diff := cmp.Diff([]string{contract.EtcdContainer, contract.SimulatorContainer}, containerNames(pod)); diff != "" {
		t.Errorf("containers (-want +got):\n%s", diff)
	}
	if got := pod.Annotations[AnnotationDefaultContainer]; got != contract.SimulatorContainer {
		t.Errorf("annotation %s = %q, want %q", AnnotationDefaultContainer, got, contract.SimulatorContainer)
	}
	wantEnv := map[string]string{
		contract.EnvKubeAPIPort: "3131", contract.EnvPort: "1212", contract.EnvEtcdURL: "http://127.0.0.1:2379",
		contract.EnvCORSAllowedOriginList: "http://a.example,http://b.example",
		contract.EnvCredentialsDir:        contract.CredentialsDir, contract.EnvEtcdPrefix: "/simulators/team-a/example/u1",
		contract.EnvDataDir: contract.PodDataDir,
	}
	simc := Container(&pod.Spec, contract.SimulatorContainer)
	if diff := cmp.Diff(wantEnv, envOf(*simc)); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	// Probed every second while it starts, every 10 s once started.
	if p := simc.StartupProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz?wait=1s" || p.HTTPGet.Port.IntVal != 1212 || p.PeriodSeconds != 1 {
		t.Errorf("startup probe = %+v", p)
	}
	if p := simc.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz?wait=1s" || p.HTTPGet.Port.IntVal != 1212 || p.PeriodSeconds != 10 {
		t.Errorf("readiness probe = %+v", p)
	}
	if PodGeneration(pod) != 3 {
		t.Errorf("PodGeneration = %d", PodGeneration(pod))
	}
}

func TestPodExternalEtcd(t *testing.T) {
	s := simulator()
	s.Spec.EtcdURL = "https://etcd.example:2379"
	s.Spec.KubeSchedulerConfigurationPath = "/cfg/sched.yaml"
	pod, err := Pod(s, Local(s))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{contract.SimulatorContainer}, containerNames(pod)); diff != "" {
		t.Errorf("no etcd container with an external etcd (-want +got):\n%s", diff)
	}
	env := envOf(*Container(&pod.Spec, contract.SimulatorContainer))
	if env[contract.EnvEtcdURL] != "https://etcd.example:2379" || env[contract.EnvSchedulerConfigPath] != "/cfg/sched.yaml" {
		t.Errorf("env = %v", env)
	}
	for _, v := range pod.Spec.Volumes {
		if v.Name == contract.EtcdDataVolume {
			t.Error("no etcd data volume with an external etcd")
		}
	}
}

// TestPodEtcdDataOnClaim: with spec.etcdPersistentVolumeClaimName the etcd
// container's data volume is the claim, where it was an emptyDir.
func TestPodEtcdDataOnClaim(t *testing.T) {
	for _, tc := range []struct {
		name  string
		claim string
		want  corev1.VolumeSource
	}{
		{name: "emptyDir", want: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{name: "claim", claim: "etcd-data", want: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "etcd-data"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := simulator()
			s.Spec.EtcdPersistentVolumeClaimName = tc.claim
			pod, err := Pod(s, Local(s))
			if err != nil {
				t.Fatal(err)
			}
			var got []corev1.VolumeSource
			for _, v := range pod.Spec.Volumes {
				if v.Name == contract.EtcdDataVolume {
					got = append(got, v.VolumeSource)
				}
			}
			if diff := cmp.Diff([]corev1.VolumeSource{tc.want}, got); diff != "" {
				t.Errorf("volume %s (-want +got):\n%s", contract.EtcdDataVolume, diff)
			}
			etcd := Container(&pod.Spec, contract.EtcdContainer)
			if etcd == nil {
				t.Fatal("no etcd container")
			}
			want := []corev1.VolumeMount{{Name: contract.EtcdDataVolume, MountPath: contract.EtcdDataDir}}
			if diff := cmp.Diff(want, etcd.VolumeMounts); diff != "" {
				t.Errorf("etcd mounts (-want +got):\n%s", diff)
			}
			if !slices.Contains(etcd.Args, "--data-dir="+contract.EtcdDataDir) {
				t.Errorf("etcd args %v lack --data-dir=%s", etcd.Args, contract.EtcdDataDir)
			}
		})
	}
}

func TestPodTemplateTakesPrecedence(t *testing.T) {
	s := simulator()
	limits := corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}
	s.Spec.PodTemplate = &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Labels:      map[string]string{"team": "a", sim.LabelSimulator: "forged"},
			Annotations: map[string]string{AnnotationDefaultContainer: "sidecar"},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{
				{Name: contract.SimulatorContainer, Resources: corev1.ResourceRequirements{Limits: limits},
					Env: []corev1.EnvVar{{Name: contract.EnvPort, Value: "9999"}, {Name: "EXTRA", Value: "1"}}},
				{Name: "sidecar", Image: "busybox"},
			},
			NodeSelector: map[string]string{"disk": "ssd"},
		},
	}
	pod, err := Pod(s, Local(s))
	if err != nil {
		t.Fatal(err)
	}
	names := containerNames(pod)
	sort.Strings(names)
	if diff := cmp.Diff([]string{contract.EtcdContainer, "sidecar", contract.SimulatorContainer}, names); diff != "" {
		t.Errorf("containers merge by name, others are added (-want +got):\n%s", diff)
	}
	var c corev1.Container
	for _, ctr := range pod.Spec.Containers {
		if ctr.Name == contract.SimulatorContainer {
			c = ctr
		}
	}
	if c.Image != "sim.x-k8s.io/simulator:v1" {
		t.Errorf("generated fields the template does not set are kept: image %q", c.Image)
	}
	if !c.Resources.Limits.Memory().Equal(resource.MustParse("2Gi")) {
		t.Errorf("template resources win: %v", c.Resources)
	}
	env := envOf(c)
	if env[contract.EnvPort] != "9999" || env["EXTRA"] != "1" || env[contract.EnvKubeAPIPort] != "3131" {
		t.Errorf("template env wins by name, ours stays otherwise: %v", env)
	}
	if pod.Spec.NodeSelector["disk"] != "ssd" {
		t.Error("template spec fields are taken")
	}
	if pod.Labels["team"] != "a" || pod.Labels[sim.LabelSimulator] != "example" {
		t.Errorf("template labels are taken, ours win: %v", pod.Labels)
	}
	if got := pod.Annotations[AnnotationDefaultContainer]; got != "sidecar" {
		t.Errorf("the template's default container wins: %q", got)
	}
}

func TestSecretHoldsEveryCredential(t *testing.T) {
	s := simulator()
	secret, err := Secret(s, Local(s))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range contract.CredentialFiles {
		if len(secret.Data[k]) == 0 {
			t.Errorf("credential %q is missing", k)
		}
	}
	if secret.Name != "sim-example-credentials" || secret.Labels[sim.LabelSimulator] != "example" {
		t.Errorf("secret %s labels %v", secret.Name, secret.Labels)
	}
}

func TestService(t *testing.T) {
	s := simulator()
	svc := Service(s, Local(s))
	if svc.Name != "sim-example" || svc.Spec.Selector[sim.LabelSimulator] != "example" || len(svc.Spec.Ports) != 2 {
		t.Errorf("service = %+v", svc)
	}
	if got := KubeAPIServerURL("example", "team-a", 3131); got != "https://sim-example.team-a.svc:3131" {
		t.Errorf("KubeAPIServerURL = %q", got)
	}
}

// TestPodMountsEtcdTLSSecret: spec.etcdTLSSecretName becomes a read-only
// Secret volume of the simulator container, named to it by env.
func TestPodMountsEtcdTLSSecret(t *testing.T) {
	s := simulator()
	s.Spec.EtcdURL, s.Spec.EtcdTLSSecretName = "https://etcd.example:2379", "etcd-client"
	pod, err := Pod(s, Local(s))
	if err != nil {
		t.Fatal(err)
	}
	var volume *corev1.Volume
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == contract.EtcdTLSVolume {
			volume = &pod.Spec.Volumes[i]
		}
	}
	if volume == nil || volume.Secret == nil || volume.Secret.SecretName != "etcd-client" {
		t.Fatalf("no Secret volume of etcd-client: %+v", pod.Spec.Volumes)
	}
	for _, c := range pod.Spec.Containers {
		if c.Name != contract.SimulatorContainer {
			continue
		}
		if env := envOf(c); env[contract.EnvEtcdTLSDir] != contract.EtcdTLSDir {
			t.Errorf("env %s = %q, want %s", contract.EnvEtcdTLSDir, env[contract.EnvEtcdTLSDir], contract.EtcdTLSDir)
		}
		found := false
		for _, m := range c.VolumeMounts {
			found = found || (m.Name == contract.EtcdTLSVolume && m.MountPath == contract.EtcdTLSDir && m.ReadOnly)
		}
		if !found {
			t.Errorf("no read-only mount of %s at %s: %+v", contract.EtcdTLSVolume, contract.EtcdTLSDir, c.VolumeMounts)
		}
	}
}

// TestPodMountsSource: spec.source's Secret becomes a read-only volume of
// the simulator container, and the rest of spec.source its environment.
func TestPodMountsSource(t *testing.T) {
	s := simulator()
	s.Spec.Source = &v1alpha1.SimulatorSource{
		SecretName: "prod", Mode: v1alpha1.SourceModeSync, Namespaces: []string{"web"}, QPS: 20,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "front"}},
	}
	pod, err := Pod(s, Local(s))
	if err != nil {
		t.Fatal(err)
	}
	var volume *corev1.Volume
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == contract.SourceVolume {
			volume = &pod.Spec.Volumes[i]
		}
	}
	if volume == nil || volume.Secret == nil || volume.Secret.SecretName != "prod" {
		t.Fatalf("no Secret volume of prod: %+v", pod.Spec.Volumes)
	}
	c := Container(&pod.Spec, contract.SimulatorContainer)
	got, err := contract.ParseSource(envOf(*c)[contract.EnvSource])
	if err != nil {
		t.Fatal(err)
	}
	want := &contract.Source{Mode: contract.SourceModeSync, Dir: contract.SourceDir, Namespaces: []string{"web"}, LabelSelector: "tier=front", QPS: 20}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", contract.EnvSource, diff)
	}
	if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.Name == contract.SourceVolume && m.MountPath == contract.SourceDir && m.ReadOnly
	}) {
		t.Errorf("no read-only mount of %s at %s: %+v", contract.SourceVolume, contract.SourceDir, c.VolumeMounts)
	}
}

// TestPodRequests: every container requests CPU and memory, so the Pod is
// Burstable, not BestEffort (evicted first); a podTemplate's requests win.
func TestPodRequests(t *testing.T) {
	s := simulator()
	pod, err := Pod(s, Local(s))
	if err != nil {
		t.Fatal(err)
	}
	total := corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			q, ok := c.Resources.Requests[name]
			if !ok || q.IsZero() {
				t.Errorf("container %s requests no %s", c.Name, name)
			}
			sum := total[name]
			sum.Add(q)
			total[name] = sum
		}
	}
	// 40 simulators on a node of 2 CPUs (the density budget).
	if cpu := total[corev1.ResourceCPU]; cpu.MilliValue()*40 > 1900 {
		t.Errorf("the Pod requests %s CPU: 40 of them do not fit on 2 CPUs", cpu.String())
	}
	s = simulator()
	s.Spec.PodTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: contract.SimulatorContainer, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}},
	}}}}
	if pod, err = Pod(s, Local(s)); err != nil {
		t.Fatal(err)
	}
	if got := Container(&pod.Spec, contract.SimulatorContainer).Resources.Requests[corev1.ResourceMemory]; got.String() != "1Gi" {
		t.Errorf("the template's memory request: got %s, want 1Gi", got.String())
	}
}
