package backing

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	simconfig "sigs.k8s.io/simulator-apiserver/pkg/simulator/config"
)

func TestValidatePodTemplate(t *testing.T) {
	simulator := func(c corev1.Container) *corev1.PodTemplateSpec {
		c.Name = SimulatorContainer
		return &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "sidecar", Image: "x", Args: []string{"ok"}}, c}}}
	}
	cases := []struct {
		name     string
		template *corev1.PodTemplateSpec
		want     []string
	}{
		{"resources, other env, a sidecar's args", simulator(corev1.Container{Env: []corev1.EnvVar{{Name: simconfig.EnvPort, Value: "1"}, {Name: "EXTRA"}}}), nil},
		{"a mount elsewhere", simulator(corev1.Container{VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}), nil},
		{"prefix and credentials env", simulator(corev1.Container{Env: []corev1.EnvVar{{Name: "A"}, {Name: simconfig.EnvEtcdPrefix}, {Name: simconfig.EnvCredentialsDir}}}),
			[]string{"spec.containers[1].env[1].name", "spec.containers[1].env[2].name"}},
		{"command and args", simulator(corev1.Container{Command: []string{"sh"}, Args: []string{"--etcd-prefix=/x"}}),
			[]string{"spec.containers[1].command", "spec.containers[1].args"}},
		{"mounts on, under and above the credentials", simulator(corev1.Container{VolumeMounts: []corev1.VolumeMount{
			{Name: "a", MountPath: simconfig.DefaultCredentialsDir}, {Name: "b", MountPath: simconfig.DefaultCredentialsDir + "/ca.crt"}, {Name: "c", MountPath: "/etc"}, {Name: credentialsVolume, MountPath: "/elsewhere"}}}),
			[]string{"spec.containers[1].volumeMounts[0]", "spec.containers[1].volumeMounts[1]", "spec.containers[1].volumeMounts[2]", "spec.containers[1].volumeMounts[3]"}},
		{"our volumes", &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "mine"}, {Name: credentialsVolume}, {Name: etcdDataVolume}}}},
			[]string{"spec.volumes[1].name", "spec.volumes[2].name"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidatePodTemplate(tc.template, field.NewPath("spec"))
			var got []string
			for _, e := range errs {
				if e.Type != field.ErrorTypeForbidden {
					t.Errorf("%v: want Forbidden", e)
				}
				got = append(got, e.Field[len("spec."):])
			}
			if len(got) != len(tc.want) {
				t.Fatalf("errors %v, want on %v", errs, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("error %d on %s, want %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestPodMountsEtcdTLSSecret: spec.etcdTLSSecretName becomes a read-only
// Secret volume of the simulator container, named to it by env.
func TestPodMountsEtcdTLSSecret(t *testing.T) {
	s := simulator()
	s.Spec.EtcdURL, s.Spec.EtcdTLSSecretName = "https://etcd.example:2379", "etcd-client"
	pod, err := Pod(s)
	if err != nil {
		t.Fatal(err)
	}
	var volume *corev1.Volume
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == etcdTLSVolume {
			volume = &pod.Spec.Volumes[i]
		}
	}
	if volume == nil || volume.Secret == nil || volume.Secret.SecretName != "etcd-client" {
		t.Fatalf("no Secret volume of etcd-client: %+v", pod.Spec.Volumes)
	}
	for _, c := range pod.Spec.Containers {
		if c.Name != SimulatorContainer {
			continue
		}
		if env := envOf(c); env[simconfig.EnvEtcdTLSDir] != etcdTLSDir {
			t.Errorf("env %s = %q, want %s", simconfig.EnvEtcdTLSDir, env[simconfig.EnvEtcdTLSDir], etcdTLSDir)
		}
		found := false
		for _, m := range c.VolumeMounts {
			found = found || (m.Name == etcdTLSVolume && m.MountPath == etcdTLSDir && m.ReadOnly)
		}
		if !found {
			t.Errorf("no read-only mount of %s at %s: %+v", etcdTLSVolume, etcdTLSDir, c.VolumeMounts)
		}
	}
}
