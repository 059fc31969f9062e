package simulator

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/version"
)

// podAccess keeps spec.podTemplate and spec.image from being a way around
// host RBAC: the server creates the Pod with its own account, so a caller who
// shapes that Pod must be allowed to create Pods in the namespace himself, as
// with a Deployment. The check is a SubjectAccessReview for the caller (user,
// groups, uid, extra), made by the host through the delegated authorizer.
type podAccess struct {
	authorizer authorizer.Authorizer
}

// shapesPod says whether a spec chooses anything of the Pod beyond what the
// server generates.
func shapesPod(spec *sim.SimulatorSpec) bool {
	return spec.PodTemplate != nil || (spec.Image != "" && spec.Image != version.SimulatorImage())
}

func (a podAccess) check(ctx context.Context, s *sim.Simulator) error {
	caller, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return apierrors.NewUnauthorized("no user in the request")
	}
	attrs := authorizer.AttributesRecord{
		User:            caller,
		Verb:            "create",
		Namespace:       s.Namespace,
		APIVersion:      "v1",
		Resource:        "pods",
		ResourceRequest: true,
	}
	decision, reason, err := a.authorizer.Authorize(ctx, attrs)
	if decision == authorizer.DecisionAllow {
		return nil
	}
	msg := fmt.Sprintf("user %q cannot create pods in namespace %q, which a simulator that sets spec.podTemplate or spec.image needs (its Pod is shaped by the caller)", caller.GetName(), s.Namespace)
	if reason != "" {
		msg += ": " + reason
	}
	if err != nil {
		msg += ": " + err.Error()
	}
	return apierrors.NewForbidden(sim.Resource("simulators"), s.Name, fmt.Errorf("%s", msg))
}

func (a podAccess) createValidation(next rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		if next != nil {
			if err := next(ctx, obj); err != nil {
				return err
			}
		}
		s := obj.(*sim.Simulator)
		if !shapesPod(&s.Spec) {
			return nil
		}
		return a.check(ctx, s)
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
		if !shapesPod(&newSim.Spec) {
			return nil
		}
		if newSim.Spec.Image == oldSim.Spec.Image && apiequality.Semantic.DeepEqual(newSim.Spec.PodTemplate, oldSim.Spec.PodTemplate) {
			return nil
		}
		return a.check(ctx, newSim)
	}
}
