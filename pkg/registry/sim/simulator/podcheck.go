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
	"net/http"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/site"
)

// podCheck dry-runs the Pod a simulator would get in the host (or in its
// hosting cluster), so that a podTemplate the cluster would refuse is
// refused at apply time, with paths under spec.podTemplate, and nothing is
// left behind.
type podCheck struct {
	scheme *runtime.Scheme
	pods   corev1client.PodsGetter
	// sites reaches hosting clusters; nil when hosting is off.
	sites *site.Resolver
}

func (c podCheck) check(ctx context.Context, obj runtime.Object) error {
	s := obj.(*sim.Simulator)
	external := &v1alpha1.Simulator{}
	if err := c.scheme.Convert(s, external, nil); err != nil {
		return apierrors.NewInternalError(fmt.Errorf("converting simulator %s: %w", s.Name, err))
	}
	place, pods, where := backing.Local(external), c.pods, "the host"
	if s.Spec.Hosting != nil {
		if c.sites == nil {
			return nil // refused by validation: hosting is off
		}
		st, err := c.sites.Of(site.InternalRefOf(s))
		if err != nil {
			// Not reachable now, or not followed yet (the first
			// simulator to name it is not stored yet): the reconciler
			// says so in the status, and what the cluster refuses once it
			// can.
			return nil
		}
		place, pods, where = st.Place, st.Client.CoreV1(), "the hosting cluster"
	}
	pod, err := backing.Pod(external, place)
	if err != nil {
		return apierrors.NewInvalid(sim.Kind("Simulator"), s.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "podTemplate"), "", err.Error()),
		})
	}
	_, err = pods.Pods(place.Namespace).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	switch {
	case err == nil, apierrors.IsAlreadyExists(err):
		// AlreadyExists comes after validation and admission passed: the
		// Pod is acceptable, and its name is taken by the simulator's own
		// Pod (the name's record then answers AlreadyExists, not a 500) or
		// by a stranger's, which the reconciler reports.
		return nil
	case apierrors.IsInvalid(err):
		return underPodTemplate(s.Name, where, err)
	case apierrors.IsForbidden(err):
		// Admission of the cluster (PodSecurity, quota, policies) refuses the Pod.
		return apierrors.NewForbidden(sim.Resource("simulators"), s.Name, fmt.Errorf("%s refuses the simulator's Pod: %w", where, err))
	default:
		return apierrors.NewInternalError(fmt.Errorf("dry-running the Pod of simulator %s in %s: %w", s.Name, where, err))
	}
}

// underPodTemplate re-roots the 422 of where (the host, or the hosting
// cluster) about the Pod at the simulator's spec.podTemplate, where the
// user can fix it, keeping the cluster's causes.
func underPodTemplate(name, where string, err error) error {
	root := "spec.podTemplate"
	var hostStatus metav1.Status
	if status, ok := err.(apierrors.APIStatus); ok {
		hostStatus = status.Status()
	}
	details := &metav1.StatusDetails{Group: sim.GroupName, Kind: "Simulator", Name: name}
	var msgs []string
	if hostStatus.Details != nil {
		for _, c := range hostStatus.Details.Causes {
			c.Field = root + "." + c.Field
			details.Causes = append(details.Causes, c)
			msgs = append(msgs, c.Field+": "+c.Message)
		}
	}
	if len(msgs) == 0 {
		details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: root, Message: err.Error()}}
		msgs = []string{root + ": " + err.Error()}
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnprocessableEntity,
		Reason:  metav1.StatusReasonInvalid,
		Details: details,
		Message: fmt.Sprintf("Simulator %q is invalid: %s refuses its Pod: %s", name, where, strings.Join(msgs, ", ")),
	}}
}

func (c podCheck) createValidation(next rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		if next != nil {
			if err := next(ctx, obj); err != nil {
				return err
			}
		}
		return c.check(ctx, obj)
	}
}

// updateValidation dry-runs only when the spec changes: metadata-only writes
// (labels, the reconciler's status touch) need no new Pod.
func (c podCheck) updateValidation(next rest.ValidateObjectUpdateFunc) rest.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		if next != nil {
			if err := next(ctx, obj, old); err != nil {
				return err
			}
		}
		if apiequality.Semantic.DeepEqual(obj.(*sim.Simulator).Spec, old.(*sim.Simulator).Spec) {
			return nil
		}
		return c.check(ctx, obj)
	}
}
