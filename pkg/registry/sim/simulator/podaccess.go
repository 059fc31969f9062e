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

package simulator

import (
	"context"
	"fmt"
	"maps"
	"slices"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/version"
)

// podAccess keeps spec.podTemplate, spec.image and
// spec.etcdPersistentVolumeClaimName from being a way around host RBAC: the
// server creates the Pod with its own account, so a caller who shapes that
// Pod must be allowed to create Pods in the namespace himself, as with a
// Deployment; and a caller who names a Secret must be allowed to get it
// (checkSecrets). The checks are SubjectAccessReviews for the caller (user,
// groups, uid, extra), made by the host through the delegated authorizer.
type podAccess struct {
	authorizer authorizer.Authorizer
}

// shapesPod says whether a spec chooses anything of the Pod beyond what the
// server generates. A claim counts: the host lets whoever may create Pods
// mount any claim of the namespace read-write, and nobody else (there is no
// "use" verb on persistentvolumeclaims), so create pods is the right that
// naming one for the server's Pod needs.
func shapesPod(spec *sim.SimulatorSpec) bool {
	return spec.PodTemplate != nil || (spec.Image != "" && spec.Image != version.SimulatorImage()) || spec.EtcdPersistentVolumeClaimName != ""
}

// samePodShape says whether two specs choose the same of the Pod.
func samePodShape(a, b *sim.SimulatorSpec) bool {
	return a.Image == b.Image && a.EtcdPersistentVolumeClaimName == b.EtcdPersistentVolumeClaimName &&
		apiequality.Semantic.DeepEqual(a.PodTemplate, b.PodTemplate)
}

// Target is the object a caller writes, which a 403 names.
type Target struct {
	Resource        schema.GroupResource
	Namespace, Name string
}

func targetOf(s *sim.Simulator) Target {
	return Target{Resource: sim.Resource("simulators"), Namespace: s.Namespace, Name: s.Name}
}

// check asks for create pods, which a spec at fldPath (spec, or a
// scenario's spec.simulator) that shapes the Pod needs.
func (a podAccess) check(ctx context.Context, t Target, fldPath string) error {
	return a.allowed(ctx, t, authorizer.AttributesRecord{Verb: "create", APIVersion: "v1", Resource: "pods"},
		fmt.Sprintf("which a simulator that sets %[1]s.podTemplate, %[1]s.image or %[1]s.etcdPersistentVolumeClaimName needs (its Pod is shaped, or mounts a claim, as the caller says)", fldPath))
}

// namedSecret is a Secret a spec names and what the server does with it.
type namedSecret struct {
	name, use string
}

const mounted = "the Secret is mounted into the simulator's Pod"

// secretsNamed are the Secrets a spec at fldPath names for the server to
// use in the caller's stead, by the field that names them.
func secretsNamed(spec *sim.SimulatorSpec, fldPath string) map[string]namedSecret {
	named := map[string]namedSecret{}
	if name := spec.EtcdTLSSecretName; name != "" {
		named[fldPath+".etcdTLSSecretName"] = namedSecret{name, mounted}
	}
	if spec.Source != nil && spec.Source.SecretName != "" {
		named[fldPath+".source.secretName"] = namedSecret{spec.Source.SecretName, mounted}
	}
	if spec.Hosting != nil && spec.Hosting.SecretName != "" {
		named[fldPath+".hosting.secretName"] = namedSecret{spec.Hosting.SecretName,
			"the server acts in the hosting cluster with the Secret's kubeconfig"}
	}
	return named
}

// checkSecrets: the server mounts the Secrets a spec names into the Pod it
// makes, or acts with the credentials they hold, so naming one needs the
// caller's own get on it, as mounting it into a Pod of their own or reading
// those credentials would. Only the names old did not already hold are
// checked: whoever named those was checked then.
func (a podAccess) checkSecrets(ctx context.Context, t Target, spec, old *sim.SimulatorSpec, fldPath string) error {
	var before map[string]namedSecret
	if old != nil {
		before = secretsNamed(old, fldPath)
	}
	named := secretsNamed(spec, fldPath)
	for _, fld := range slices.Sorted(maps.Keys(named)) {
		secret := named[fld]
		if before[fld].name == secret.name {
			continue
		}
		if err := a.allowed(ctx, t, authorizer.AttributesRecord{Verb: "get", APIVersion: "v1", Resource: "secrets", Name: secret.name},
			fmt.Sprintf("which %s needs (%s)", fld, secret.use)); err != nil {
			return err
		}
	}
	return nil
}

// allowed asks the host whether the caller may do attrs in the target's
// namespace (a SubjectAccessReview for user, groups, uid and extra).
func (a podAccess) allowed(ctx context.Context, t Target, attrs authorizer.AttributesRecord, why string) error {
	caller, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return apierrors.NewUnauthorized("no user in the request")
	}
	attrs.User, attrs.Namespace, attrs.ResourceRequest = caller, t.Namespace, true
	decision, reason, err := a.authorizer.Authorize(ctx, attrs)
	if decision == authorizer.DecisionAllow {
		return nil
	}
	what := attrs.Resource
	if attrs.APIGroup != "" {
		what += "." + attrs.APIGroup
	}
	if attrs.Subresource != "" {
		what += "/" + attrs.Subresource
	}
	if attrs.Name != "" {
		what += " " + attrs.Name
	}
	msg := fmt.Sprintf("user %q cannot %s %s in namespace %q, %s", caller.GetName(), attrs.Verb, what, t.Namespace, why)
	if reason != "" {
		msg += ": " + reason
	}
	if err != nil {
		msg += ": " + err.Error()
	}
	return apierrors.NewForbidden(t.Resource, t.Name, fmt.Errorf("%s", msg))
}

// Access asks the host, by SubjectAccessReview, whether a caller may do
// what an object of theirs makes the server do in their name: the checks
// simulators make, for other resources (scenarios) to make too.
type Access struct {
	a podAccess
}

// NewAccess returns the checks, made by authz (the host's delegated authorizer).
func NewAccess(authz authorizer.Authorizer) Access { return Access{podAccess{authorizer: authz}} }

// Allowed answers a 403 for t naming what the caller may not do, and why
// the request needs it, unless the caller may do attrs in t's namespace.
func (a Access) Allowed(ctx context.Context, t Target, attrs authorizer.AttributesRecord, why string) error {
	return a.a.allowed(ctx, t, attrs, why)
}

// SimulatorSpec makes the checks of a simulator's create for spec, found
// at fldPath of t: get on each Secret it names; create pods if it shapes
// the Pod.
func (a Access) SimulatorSpec(ctx context.Context, t Target, spec *sim.SimulatorSpec, fldPath string) error {
	if err := a.a.checkSecrets(ctx, t, spec, nil, fldPath); err != nil {
		return err
	}
	if !shapesPod(spec) {
		return nil
	}
	return a.a.check(ctx, t, fldPath)
}

func (a podAccess) createValidation(next rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		if next != nil {
			if err := next(ctx, obj); err != nil {
				return err
			}
		}
		s := obj.(*sim.Simulator)
		return NewAccess(a.authorizer).SimulatorSpec(ctx, targetOf(s), &s.Spec, "spec")
	}
}

// updateValidation checks only a change of what shapes the Pod: whoever set
// the template was checked then, and other writers (labels, the reconciler's
// status touch, a port) do not choose the Pod.
func (a podAccess) updateValidation(next rest.ValidateObjectUpdateFunc) rest.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		if next != nil {
			if err := next(ctx, obj, old); err != nil {
				return err
			}
		}
		newSim, oldSim := obj.(*sim.Simulator), old.(*sim.Simulator)
		if err := a.checkSecrets(ctx, targetOf(newSim), &newSim.Spec, &oldSim.Spec, "spec"); err != nil {
			return err
		}
		if !shapesPod(&newSim.Spec) {
			return nil
		}
		if samePodShape(&newSim.Spec, &oldSim.Spec) {
			return nil
		}
		return a.check(ctx, targetOf(newSim), "spec")
	}
}
