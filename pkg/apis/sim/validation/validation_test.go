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
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// errs renders an ErrorList as "type path" lines: the test pins the kind and
// the field path of every error, not the wording.
func errs(list field.ErrorList) []string {
	var out []string
	for _, e := range list {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func validSimulator() *sim.Simulator {
	return &sim.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "default"},
		Spec: sim.SimulatorSpec{
			KubeAPIServerPort:   3131,
			SimulatorServerPort: 1212,
			Image:               "sim.x-k8s.io/simulator:v0.1.0",
		},
	}
}

func validSource() *sim.SimulatorSource {
	return &sim.SimulatorSource{SecretName: "source", Mode: sim.SourceModeOnce, QPS: 50}
}

// withHosting admits spec.hosting, as a server with --enable-hosting does.
func withHosting() Options {
	opts := DefaultOptions()
	opts.Hosting = true
	return opts
}

func TestValidateSimulator(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*sim.Simulator)
		want   []string
	}{
		{name: "valid defaults", mutate: func(*sim.Simulator) {}},
		{name: "valid everything", mutate: func(s *sim.Simulator) {
			s.Spec.EtcdURL = "https://etcd.example.svc:2379"
			s.Spec.KubeAPIServerPort = 2379 // free when etcd is external
			s.Spec.CORSAllowedOriginList = []string{"http://localhost:3000", "https://ui.example.com"}
			s.Spec.KubeSchedulerConfigurationPath = "/config/scheduler.yaml"
			s.Spec.PodTemplate = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "a"}}}
		}},
		{name: "name not a DNS label", mutate: func(s *sim.Simulator) { s.Name = "Bad.Name" },
			want: []string{"FieldValueInvalid metadata.name"}},
		{name: "name too long for the derived Service", mutate: func(s *sim.Simulator) { s.Name = strings.Repeat("a", 60) },
			want: []string{"FieldValueInvalid metadata.name"}},
		{name: "longest name that fits", mutate: func(s *sim.Simulator) { s.Name = strings.Repeat("a", 59) }},
		{name: "namespace required", mutate: func(s *sim.Simulator) { s.Namespace = "" },
			want: []string{"FieldValueRequired metadata.namespace"}},
		{name: "port zero", mutate: func(s *sim.Simulator) { s.Spec.KubeAPIServerPort = 0 },
			want: []string{"FieldValueInvalid spec.kubeAPIServerPort"}},
		{name: "port too big", mutate: func(s *sim.Simulator) { s.Spec.SimulatorServerPort = 65536 },
			want: []string{"FieldValueInvalid spec.simulatorServerPort"}},
		{name: "ports equal", mutate: func(s *sim.Simulator) { s.Spec.SimulatorServerPort = 3131 },
			want: []string{"FieldValueDuplicate spec.simulatorServerPort"}},
		{name: "port used by in-pod etcd", mutate: func(s *sim.Simulator) { s.Spec.KubeAPIServerPort = 2379 },
			want: []string{"FieldValueInvalid spec.kubeAPIServerPort"}},
		{name: "port used by the scheduler", mutate: func(s *sim.Simulator) { s.Spec.SimulatorServerPort = 10259 },
			want: []string{"FieldValueInvalid spec.simulatorServerPort"}},
		{name: "etcd URL not http", mutate: func(s *sim.Simulator) { s.Spec.EtcdURL = "unix:///run/etcd.sock" },
			want: []string{"FieldValueNotSupported spec.etcdURL.scheme"}},
		{name: "etcd URL without host", mutate: func(s *sim.Simulator) { s.Spec.EtcdURL = "http://:2379" },
			want: []string{"FieldValueInvalid spec.etcdURL"}},
		{name: "etcd client certificate for an https etcd", mutate: func(s *sim.Simulator) {
			s.Spec.EtcdURL, s.Spec.EtcdTLSSecretName = "https://etcd.example.svc:2379", "etcd-client"
		}},
		{name: "etcd client certificate without an etcd", mutate: func(s *sim.Simulator) { s.Spec.EtcdTLSSecretName = "etcd-client" },
			want: []string{"FieldValueInvalid spec.etcdTLSSecretName"}},
		{name: "etcd client certificate for http", mutate: func(s *sim.Simulator) {
			s.Spec.EtcdURL, s.Spec.EtcdTLSSecretName = "http://etcd.example.svc:2379", "etcd-client"
		}, want: []string{"FieldValueInvalid spec.etcdTLSSecretName"}},
		{name: "etcd client certificate Secret name", mutate: func(s *sim.Simulator) {
			s.Spec.EtcdURL, s.Spec.EtcdTLSSecretName = "https://etcd.example.svc:2379", "Not_A_Name"
		}, want: []string{"FieldValueInvalid spec.etcdTLSSecretName"}},
		{name: "etcd data on a claim", mutate: func(s *sim.Simulator) { s.Spec.EtcdPersistentVolumeClaimName = "sim-etcd.data" }},
		{name: "etcd data claim name", mutate: func(s *sim.Simulator) { s.Spec.EtcdPersistentVolumeClaimName = "Not_A_Name" },
			want: []string{"FieldValueInvalid spec.etcdPersistentVolumeClaimName"}},
		{name: "etcd data claim and an external etcd", mutate: func(s *sim.Simulator) {
			s.Spec.EtcdURL, s.Spec.EtcdPersistentVolumeClaimName = "http://etcd.example.svc:2379", "sim-etcd"
		}, want: []string{"FieldValueInvalid spec.etcdPersistentVolumeClaimName"}},
		{name: "etcd URL with path", mutate: func(s *sim.Simulator) { s.Spec.EtcdURL = "http://etcd:2379/v3" },
			want: []string{"FieldValueInvalid spec.etcdURL"}},
		{name: "etcd URL bad port", mutate: func(s *sim.Simulator) { s.Spec.EtcdURL = "http://etcd:99999" },
			want: []string{"FieldValueInvalid spec.etcdURL"}},
		{name: "etcd URL unparsable", mutate: func(s *sim.Simulator) { s.Spec.EtcdURL = "http://[::1" },
			want: []string{"FieldValueInvalid spec.etcdURL"}},
		{name: "CORS origin with path", mutate: func(s *sim.Simulator) { s.Spec.CORSAllowedOriginList = []string{"http://a.example/ui"} },
			want: []string{"FieldValueInvalid spec.corsAllowedOriginList[0]"}},
		{name: "CORS origin without scheme", mutate: func(s *sim.Simulator) { s.Spec.CORSAllowedOriginList = []string{"ok.example", "localhost:3000"} },
			want: []string{"FieldValueInvalid spec.corsAllowedOriginList[0]", "FieldValueInvalid spec.corsAllowedOriginList[1]"}},
		{name: "CORS origin duplicate", mutate: func(s *sim.Simulator) {
			s.Spec.CORSAllowedOriginList = []string{"http://a.example", "http://a.example"}
		}, want: []string{"FieldValueDuplicate spec.corsAllowedOriginList[1]"}},
		{name: "image empty", mutate: func(s *sim.Simulator) { s.Spec.Image = "" },
			want: []string{"FieldValueRequired spec.image"}},
		{name: "image invalid", mutate: func(s *sim.Simulator) { s.Spec.Image = "Not An Image" },
			want: []string{"FieldValueInvalid spec.image"}},
		{name: "pod template label invalid", mutate: func(s *sim.Simulator) {
			s.Spec.PodTemplate = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"bad key!": "v"}}}
		}, want: []string{"FieldValueInvalid spec.podTemplate.metadata.labels"}},
		{name: "source", mutate: func(s *sim.Simulator) {
			s.Spec.Source = validSource()
			s.Spec.Source.Mode, s.Spec.Source.Namespaces = sim.SourceModeSync, []string{"team-a", "team-b"}
			s.Spec.Source.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		}},
		{name: "source without a Secret", mutate: func(s *sim.Simulator) {
			s.Spec.Source = validSource()
			s.Spec.Source.SecretName = ""
		}, want: []string{"FieldValueRequired spec.source.secretName"}},
		{name: "source Secret name", mutate: func(s *sim.Simulator) {
			s.Spec.Source = validSource()
			s.Spec.Source.SecretName = "Not_A_Name"
		}, want: []string{"FieldValueInvalid spec.source.secretName"}},
		{name: "source mode", mutate: func(s *sim.Simulator) {
			s.Spec.Source = validSource()
			s.Spec.Source.Mode = "Always"
		}, want: []string{"FieldValueNotSupported spec.source.mode"}},
		{name: "source qps", mutate: func(s *sim.Simulator) {
			s.Spec.Source = validSource()
			s.Spec.Source.QPS = MaxSourceQPS + 1
		}, want: []string{"FieldValueInvalid spec.source.qps"}},
		{name: "source namespaces", mutate: func(s *sim.Simulator) {
			s.Spec.Source = validSource()
			s.Spec.Source.Namespaces = []string{"a", "a", "Not_A_Namespace"}
		}, want: []string{"FieldValueDuplicate spec.source.namespaces[1]", "FieldValueInvalid spec.source.namespaces[2]"}},
		{name: "source too many namespaces", mutate: func(s *sim.Simulator) {
			s.Spec.Source = validSource()
			for i := range MaxSourceNamespaces + 1 {
				s.Spec.Source.Namespaces = append(s.Spec.Source.Namespaces, fmt.Sprintf("ns-%d", i))
			}
		}, want: []string{"FieldValueTooMany spec.source.namespaces"}},
		{name: "source label selector", mutate: func(s *sim.Simulator) {
			s.Spec.Source = validSource()
			s.Spec.Source.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
		}, want: []string{"FieldValueInvalid spec.source.labelSelector.matchExpressions[0].operator"}},
		{name: "pod template names the pod", mutate: func(s *sim.Simulator) {
			s.Spec.PodTemplate = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "y"}}
		}, want: []string{"FieldValueForbidden spec.podTemplate.metadata.name", "FieldValueForbidden spec.podTemplate.metadata.namespace"}},
		{name: "hosting", mutate: func(s *sim.Simulator) {
			s.Spec.Hosting = &sim.SimulatorHosting{SecretName: "cluster-b.kubeconfig", Namespace: "sims", Route: sim.SimulatorHostingRoutePodsProxy}
		}},
		{name: "hosting needs both fields", mutate: func(s *sim.Simulator) {
			s.Spec.Hosting = &sim.SimulatorHosting{Route: sim.SimulatorHostingRoutePodsProxy}
		},
			want: []string{"FieldValueRequired spec.hosting.secretName", "FieldValueRequired spec.hosting.namespace"}},
		{name: "hosting Secret without a namespace", mutate: func(s *sim.Simulator) {
			s.Spec.Hosting = &sim.SimulatorHosting{SecretName: "cluster-b", Route: sim.SimulatorHostingRoutePodsProxy}
		}, want: []string{"FieldValueRequired spec.hosting.namespace"}},
		{name: "hosting namespace without a Secret", mutate: func(s *sim.Simulator) {
			s.Spec.Hosting = &sim.SimulatorHosting{Namespace: "sims", Route: sim.SimulatorHostingRoutePodsProxy}
		}, want: []string{"FieldValueRequired spec.hosting.secretName"}},
		{name: "hosting names", mutate: func(s *sim.Simulator) {
			// A Secret's name is a DNS subdomain, a namespace's a DNS label.
			s.Spec.Hosting = &sim.SimulatorHosting{SecretName: "Not_A_Name", Namespace: "sims.team-a", Route: sim.SimulatorHostingRoutePodsProxy}
		}, want: []string{"FieldValueInvalid spec.hosting.secretName", "FieldValueInvalid spec.hosting.namespace"}},
		{name: "hosting namespace too long", mutate: func(s *sim.Simulator) {
			s.Spec.Hosting = &sim.SimulatorHosting{SecretName: "cluster-b", Namespace: strings.Repeat("n", 64), Route: sim.SimulatorHostingRoutePodsProxy}
		}, want: []string{"FieldValueInvalid spec.hosting.namespace"}},
		{name: "hosting at a NodePort", mutate: func(s *sim.Simulator) {
			s.Spec.Hosting = &sim.SimulatorHosting{SecretName: "cluster-b", Namespace: "sims", Route: sim.SimulatorHostingRouteNodePort}
		}},
		{name: "hosting route", mutate: func(s *sim.Simulator) {
			s.Spec.Hosting = &sim.SimulatorHosting{SecretName: "cluster-b", Namespace: "sims", Route: "LoadBalancer"}
		}, want: []string{"FieldValueNotSupported spec.hosting.route"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := validSimulator()
			tc.mutate(s)
			if diff := cmp.Diff(tc.want, errs(ValidateSimulator(s, withHosting()))); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateSimulatorUpdate(t *testing.T) {
	old := validSimulator()
	old.ResourceVersion = "1"
	updated := old.DeepCopy()
	updated.Spec.Image = "example.com/other:v2"
	updated.Spec.KubeAPIServerPort = 6443
	if got := errs(ValidateSimulatorUpdate(updated, old)); len(got) != 0 {
		t.Errorf("spec fields must be updatable, got %v", got)
	}
	updated.Spec.SimulatorServerPort = 6443
	if diff := cmp.Diff([]string{"FieldValueDuplicate spec.simulatorServerPort"}, errs(ValidateSimulatorUpdate(updated, old))); diff != "" {
		t.Errorf("update is validated like create (-want +got):\n%s", diff)
	}
}

// TestHostingImmutable: spec.hosting can be neither set, removed nor
// changed by an update, and an update that keeps it is valid.
func TestHostingImmutable(t *testing.T) {
	hosted := func(secret, namespace string) *sim.Simulator {
		s := validSimulator()
		s.ResourceVersion = "1"
		if secret != "" {
			s.Spec.Hosting = &sim.SimulatorHosting{SecretName: secret, Namespace: namespace, Route: sim.SimulatorHostingRoutePodsProxy}
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		old, new *sim.Simulator
		want     []string
	}{
		{name: "kept", old: hosted("cluster-b", "sims"), new: hosted("cluster-b", "sims")},
		{name: "set", old: hosted("", ""), new: hosted("cluster-b", "sims"), want: []string{"FieldValueInvalid spec.hosting"}},
		{name: "removed", old: hosted("cluster-b", "sims"), new: hosted("", ""), want: []string{"FieldValueInvalid spec.hosting"}},
		{name: "another Secret", old: hosted("cluster-b", "sims"), new: hosted("cluster-c", "sims"), want: []string{"FieldValueInvalid spec.hosting"}},
		{name: "another namespace", old: hosted("cluster-b", "sims"), new: hosted("cluster-b", "other"), want: []string{"FieldValueInvalid spec.hosting"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.new.Spec.Image = "example.com/other:v2" // a change beside it
			got := ValidateSimulatorUpdate(tc.new, tc.old)
			if diff := cmp.Diff(tc.want, errs(got)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			for _, e := range got {
				if !strings.Contains(e.Detail, "immutable") {
					t.Errorf("error %q does not say the field is immutable", e.Error())
				}
			}
		})
	}
}

// TestHostingNotEnabled: a server without --enable-hosting refuses a new
// simulator with spec.hosting, and a scenario whose variants would be one,
// as invalid on that field; an update of one made before is not refused.
func TestHostingNotEnabled(t *testing.T) {
	s := validSimulator()
	s.Spec.Hosting = &sim.SimulatorHosting{SecretName: "cluster-b", Namespace: "sims", Route: sim.SimulatorHostingRoutePodsProxy}
	got := ValidateSimulator(s, DefaultOptions())
	if diff := cmp.Diff([]string{"FieldValueForbidden spec.hosting"}, errs(got)); diff != "" {
		t.Errorf("simulator errors (-want +got):\n%s", diff)
	} else if !strings.Contains(got[0].Detail, "hosting clusters are not enabled on this server") {
		t.Errorf("error %q does not say hosting is not enabled", got[0].Error())
	}
	if got := errs(ValidateSimulator(s, withHosting())); len(got) != 0 {
		t.Errorf("enabled: %v, want none", got)
	}
	updated := s.DeepCopy()
	updated.ResourceVersion, s.ResourceVersion = "1", "1"
	updated.Finalizers = nil
	if got := errs(ValidateSimulatorUpdate(updated, s)); len(got) != 0 {
		t.Errorf("update of a hosted simulator: %v, want none", got)
	}

	scn := validScenario()
	scn.Spec.Simulator.Hosting = &sim.SimulatorHosting{SecretName: "cluster-b", Namespace: "sims", Route: sim.SimulatorHostingRoutePodsProxy}
	if diff := cmp.Diff([]string{"FieldValueForbidden spec.simulator.hosting"}, errs(ValidateScenario(scn, DefaultOptions()))); diff != "" {
		t.Errorf("scenario errors (-want +got):\n%s", diff)
	}
	if got := errs(ValidateScenario(scn, withHosting())); len(got) != 0 {
		t.Errorf("scenario, enabled: %v, want none", got)
	}
}

func validNodePool() *sim.NodePool {
	return &sim.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "pool", Namespace: "default"},
		Spec: sim.NodePoolSpec{
			SimulatorName: "example",
			Replicas:      ptr.To[int32](3),
			Template: sim.NodeTemplate{
				Metadata: sim.NodeTemplateMetadata{
					Labels:      map[string]string{"zone": "z{{ .Index }}"},
					Annotations: map[string]string{"note": "node {{ .Name }}"},
				},
				Spec: sim.NodeTemplateSpec{
					PodCIDR: `{{ AddCIDR "10.0.0.0/24" .Index }}`,
					Taints:  []corev1.Taint{{Key: "dedicated", Value: "sim", Effect: corev1.TaintEffectNoSchedule}},
				},
				Status: sim.NodeTemplateStatus{
					Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("110")},
					Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("7")},
				},
			},
		},
	}
}

func TestValidateNodePool(t *testing.T) {
	opts := DefaultOptions()
	cases := []struct {
		name   string
		opts   *Options
		mutate func(*sim.NodePool)
		want   []string
	}{
		{name: "valid", mutate: func(*sim.NodePool) {}},
		{name: "zero replicas", mutate: func(np *sim.NodePool) { np.Spec.Replicas = ptr.To[int32](0) }},
		{name: "max replicas", mutate: func(np *sim.NodePool) { np.Spec.Replicas = ptr.To[int32](DefaultMaxNodePoolReplicas) }},
		{name: "negative replicas", mutate: func(np *sim.NodePool) { np.Spec.Replicas = ptr.To[int32](-1) },
			want: []string{"FieldValueInvalid spec.replicas"}},
		{name: "replicas over the default max", mutate: func(np *sim.NodePool) { np.Spec.Replicas = ptr.To[int32](DefaultMaxNodePoolReplicas + 1) },
			want: []string{"FieldValueInvalid spec.replicas"}},
		{name: "replicas over a configured max", opts: &Options{MaxNodePoolReplicas: 5}, mutate: func(np *sim.NodePool) { np.Spec.Replicas = ptr.To[int32](6) },
			want: []string{"FieldValueInvalid spec.replicas"}},
		{name: "replicas missing", mutate: func(np *sim.NodePool) { np.Spec.Replicas = nil },
			want: []string{"FieldValueRequired spec.replicas"}},
		{name: "simulatorName missing", mutate: func(np *sim.NodePool) { np.Spec.SimulatorName = "" },
			want: []string{"FieldValueRequired spec.simulatorName"}},
		{name: "simulatorName not a DNS label", mutate: func(np *sim.NodePool) { np.Spec.SimulatorName = "Sim_1" },
			want: []string{"FieldValueInvalid spec.simulatorName"}},
		{name: "name too long for its last Node", mutate: func(np *sim.NodePool) { np.Name = strings.Repeat("p", 58) },
			want: []string{"FieldValueInvalid metadata.name"}},
		{name: "longest name that fits 19999 as last index", mutate: func(np *sim.NodePool) { np.Name = strings.Repeat("p", 57) }},
		{name: "label key invalid", mutate: func(np *sim.NodePool) { np.Spec.Template.Metadata.Labels = map[string]string{"a b": "c"} },
			want: []string{"FieldValueInvalid spec.template.metadata.labels[a b]"}},
		{name: "label value template renders invalid", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Metadata.Labels = map[string]string{"zone": "z {{ .Index }}"}
		}, want: []string{"FieldValueInvalid spec.template.metadata.labels[zone]"}},
		{name: "template syntax error", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Metadata.Annotations = map[string]string{"x": "{{ .Index "}
		}, want: []string{"FieldValueInvalid spec.template.metadata.annotations[x]"}},
		{name: "template unknown field", mutate: func(np *sim.NodePool) { np.Spec.Template.Spec.ProviderID = "kwok://{{ .Nope }}" },
			want: []string{"FieldValueInvalid spec.template.spec.providerID"}},
		{name: "template loop: its cost is not bounded", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Metadata.Annotations = map[string]string{"x": "{{ range 1000000000000 }}x{{ end }}"}
		}, want: []string{"FieldValueInvalid spec.template.metadata.annotations[x]"}},
		{name: "template that multiplies its length at each printf", mutate: func(np *sim.NodePool) {
			stage := `printf "` + strings.Repeat("%[1]s", 10) + `"`
			np.Spec.Template.Metadata.Annotations = map[string]string{"x": "{{ .Name | " + strings.Repeat(stage+" | ", 6) + stage + " }}"}
		}, want: []string{"FieldValueInvalid spec.template.metadata.annotations[x]"}},
		{name: "template that is small for the first Node only", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Metadata.Annotations = map[string]string{"x": "{{ if eq .Index 0 }}ok{{ else }}" +
				strings.Repeat(`{{ printf "%256s" .Name }}`, 20) + "{{ end }}"}
		}, want: []string{"FieldValueInvalid spec.template.metadata.annotations[x]"}},
		{name: "template that fails for the last Node only", mutate: func(np *sim.NodePool) {
			np.Spec.Replicas = ptr.To[int32](300)
			np.Spec.Template.Spec.PodCIDR = `{{ AddCIDR "255.255.254.0/24" .Index }}`
		}, want: []string{"FieldValueInvalid spec.template.spec.podCIDR"}},
		{name: "Nodes larger than the budget", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Metadata.Annotations = map[string]string{}
			for i := range 20 {
				np.Spec.Template.Metadata.Annotations[fmt.Sprintf("a%d", i)] = `{{ printf "%256s%256s%256s%256s%256s%256s%256s%256s%256s%256s" ` +
					strings.Repeat(".Name ", 10) + `}}`
			}
		}, want: []string{"FieldValueTooLong spec.template"}},
		{name: "podCIDR not a CIDR", mutate: func(np *sim.NodePool) { np.Spec.Template.Spec.PodCIDR = "10.0.0.0" },
			want: []string{"FieldValueInvalid spec.template.spec.podCIDR"}},
		{name: "AddCIDR with a bad base", mutate: func(np *sim.NodePool) { np.Spec.Template.Spec.PodCIDR = `{{ AddCIDR "x" .Index }}` },
			want: []string{"FieldValueInvalid spec.template.spec.podCIDR"}},
		{name: "taint key and effect invalid", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "", Effect: "Sometimes"}}
		}, want: []string{"FieldValueInvalid spec.template.spec.taints[0].key", "FieldValueNotSupported spec.template.spec.taints[0].effect"}},
		{name: "taint value invalid", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "k", Value: "not valid!", Effect: corev1.TaintEffectNoExecute}}
		}, want: []string{"FieldValueInvalid spec.template.spec.taints[0].value"}},
		{name: "negative capacity", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Status.Capacity[corev1.ResourceMemory] = resource.MustParse("-1Gi")
		}, want: []string{"FieldValueInvalid spec.template.status.capacity[memory]"}},
		{name: "resource name invalid", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Status.Allocatable["bad name!"] = resource.MustParse("1")
		}, want: []string{"FieldValueInvalid spec.template.status.allocatable[bad name!]"}},
		{name: "allocatable over capacity", mutate: func(np *sim.NodePool) {
			np.Spec.Template.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("9")
		}, want: []string{"FieldValueInvalid spec.template.status.allocatable[cpu]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := opts
			if tc.opts != nil {
				o = *tc.opts
			}
			np := validNodePool()
			tc.mutate(np)
			if diff := cmp.Diff(tc.want, errs(ValidateNodePool(np, o))); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateNodePoolUpdate(t *testing.T) {
	old := validNodePool()
	old.ResourceVersion = "1"
	updated := old.DeepCopy()
	updated.Spec.Replicas = ptr.To[int32](100)
	if got := errs(ValidateNodePoolUpdate(updated, old, DefaultOptions())); len(got) != 0 {
		t.Errorf("scaling must be allowed, got %v", got)
	}
	updated.Spec.SimulatorName = "other"
	if diff := cmp.Diff([]string{"FieldValueInvalid spec.simulatorName"}, errs(ValidateNodePoolUpdate(updated, old, DefaultOptions()))); diff != "" {
		t.Errorf("simulatorName is immutable (-want +got):\n%s", diff)
	}
}

func TestValidateNodePoolStatusUpdate(t *testing.T) {
	old := validNodePool()
	old.ResourceVersion = "1"
	updated := old.DeepCopy()
	updated.Status.Replicas = -1
	updated.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: "Maybe", Reason: "R", LastTransitionTime: metav1.Now()}}
	want := []string{"FieldValueInvalid status.replicas", "FieldValueNotSupported status.conditions[0].status"}
	if diff := cmp.Diff(want, errs(ValidateNodePoolStatusUpdate(updated, old))); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
