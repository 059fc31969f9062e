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

package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

func TestValidatePodTemplate(t *testing.T) {
	simulator := func(c corev1.Container) *corev1.PodTemplateSpec {
		c.Name = contract.SimulatorContainer
		return &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "sidecar", Image: "x", Args: []string{"ok"}}, c}}}
	}
	cases := []struct {
		name     string
		template *corev1.PodTemplateSpec
		want     []string
	}{
		{"resources, other env, a sidecar's args", simulator(corev1.Container{Env: []corev1.EnvVar{{Name: contract.EnvPort, Value: "1"}, {Name: "EXTRA"}}}), nil},
		{"a mount elsewhere", simulator(corev1.Container{VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}), nil},
		{"prefix and credentials env", simulator(corev1.Container{Env: []corev1.EnvVar{{Name: "A"}, {Name: contract.EnvEtcdPrefix}, {Name: contract.EnvCredentialsDir}}}),
			[]string{"spec.containers[1].env[1].name", "spec.containers[1].env[2].name"}},
		{"command and args", simulator(corev1.Container{Command: []string{"sh"}, Args: []string{"--etcd-prefix=/x"}}),
			[]string{"spec.containers[1].command", "spec.containers[1].args"}},
		{"mounts on, under and above the credentials", simulator(corev1.Container{VolumeMounts: []corev1.VolumeMount{
			{Name: "a", MountPath: contract.CredentialsDir}, {Name: "b", MountPath: contract.CredentialsDir + "/ca.crt"}, {Name: "c", MountPath: "/etc"}, {Name: contract.CredentialsVolume, MountPath: "/elsewhere"}}}),
			[]string{"spec.containers[1].volumeMounts[0]", "spec.containers[1].volumeMounts[1]", "spec.containers[1].volumeMounts[2]", "spec.containers[1].volumeMounts[3]"}},
		{"our volumes", &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "mine"}, {Name: contract.CredentialsVolume}, {Name: contract.EtcdDataVolume}}}},
			[]string{"spec.volumes[1].name", "spec.volumes[2].name"}},
		{"the default account, without its token", &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			ServiceAccountName: "default", DeprecatedServiceAccount: "default", AutomountServiceAccountToken: ptr.To(false),
			Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ConfigMap: &corev1.ConfigMapProjection{}}},
			}}}},
		}}, nil},
		{"another account, a token", &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			ServiceAccountName: "admin", DeprecatedServiceAccount: "admin", AutomountServiceAccountToken: ptr.To(true),
			Volumes: []corev1.Volume{{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ConfigMap: &corev1.ConfigMapProjection{}}, {ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}},
			}}}},
		}}, []string{"spec.serviceAccountName", "spec.serviceAccount", "spec.automountServiceAccountToken", "spec.volumes[0].projected.sources[1].serviceAccountToken"}},
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
