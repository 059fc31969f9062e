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
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// serverOwnedEnv are the simulator container's variables that say which
// etcd, which prefix in it and which credentials the simulator uses. The
// prefix keeps simulators that share an external etcd apart, so a template
// may not set them (a template's env entry would win over ours by name).
var serverOwnedEnv = sets.New(contract.ServerOwnedEnv...)

// serverOwnedVolumes are the Pod's volumes that a template of the same name
// would replace.
var serverOwnedVolumes = sets.New(contract.ServerOwnedVolumes...)

// ValidatePodTemplate refuses the parts of a podTemplate that would replace
// what the server decides for the simulator container: its command and
// arguments (flags such as --etcd-prefix override the environment), the
// etcd and credentials variables, and the volumes and mounts of its
// credentials; and a host identity for the Pod (validateServiceAccount).
// Everything else merges as the API documents.
func ValidatePodTemplate(t *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	specPath := fldPath.Child("spec")
	for i, v := range t.Spec.Volumes {
		if serverOwnedVolumes.Has(v.Name) {
			errs = append(errs, field.Forbidden(specPath.Child("volumes").Index(i).Child("name"), "the volume "+v.Name+" is the server's"))
		}
	}
	errs = append(errs, validateServiceAccount(&t.Spec, specPath)...)
	for i, c := range t.Spec.Containers {
		if c.Name != contract.SimulatorContainer {
			continue
		}
		path := specPath.Child("containers").Index(i)
		if len(c.Command) > 0 {
			errs = append(errs, field.Forbidden(path.Child("command"), "the simulator container's command is the server's"))
		}
		if len(c.Args) > 0 {
			errs = append(errs, field.Forbidden(path.Child("args"), "the simulator container's arguments are the server's: they would override its etcd and credentials"))
		}
		for j, e := range c.Env {
			if serverOwnedEnv.Has(e.Name) {
				errs = append(errs, field.Forbidden(path.Child("env").Index(j).Child("name"), e.Name+" is set by the server (spec.etcdURL; the prefix keeps simulators apart)"))
			}
		}
		for j, m := range c.VolumeMounts {
			if serverOwnedVolumes.Has(m.Name) || slices.ContainsFunc(contract.ServerOwnedDirs, func(dir string) bool { return within(m.MountPath, dir) }) {
				errs = append(errs, field.Forbidden(path.Child("volumeMounts").Index(j), "the simulator's credentials are mounted by the server"))
			}
		}
	}
	return errs
}

// validateServiceAccount refuses what would give the simulator's Pod a host
// identity: another ServiceAccount than the namespace's default, or a token
// of it (automounted or projected). The simulator needs none, and the
// server's account may make no such Pod (the admission policy
// sim-apiserver-object-shapes of artifacts/deploy): refused here, with the
// field, rather than by the host when the Pod is made.
func validateServiceAccount(spec *corev1.PodSpec, specPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	const why = "the simulator's Pod runs as the namespace's default ServiceAccount"
	if n := spec.ServiceAccountName; n != "" && n != "default" {
		errs = append(errs, field.Forbidden(specPath.Child("serviceAccountName"), why))
	}
	if n := spec.DeprecatedServiceAccount; n != "" && n != "default" {
		errs = append(errs, field.Forbidden(specPath.Child("serviceAccount"), why))
	}
	if a := spec.AutomountServiceAccountToken; a != nil && *a {
		errs = append(errs, field.Forbidden(specPath.Child("automountServiceAccountToken"), "the simulator's Pod gets no host token"))
	}
	for i, v := range spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for j, source := range v.Projected.Sources {
			if source.ServiceAccountToken != nil {
				errs = append(errs, field.Forbidden(specPath.Child("volumes").Index(i).Child("projected", "sources").Index(j).Child("serviceAccountToken"),
					"the simulator's Pod gets no host token"))
			}
		}
	}
	return errs
}

// within says whether p is dir or below it, or above it (a mount there
// would hide it).
func within(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	return p == dir || strings.HasPrefix(p, dir+"/") || strings.HasPrefix(dir, strings.TrimSuffix(p, "/")+"/")
}
