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
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/version"
)

// TestClaimNeedsCreatePods: naming an etcd data claim, or another one,
// needs the caller's create on pods (a 403 saying so); a spec that keeps
// the claim it had is not checked again.
func TestClaimNeedsCreatePods(t *testing.T) {
	ctx := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "tenant"})
	withClaim := func(claim string) *sim.Simulator {
		s := &sim.Simulator{Spec: sim.SimulatorSpec{Image: version.SimulatorImage(), EtcdPersistentVolumeClaimName: claim}}
		s.Name, s.Namespace = "s", "ns"
		return s
	}
	for _, tc := range []struct {
		name      string
		old, new  *sim.Simulator
		wantAsked bool
	}{
		{name: "create without a claim", new: withClaim("")},
		{name: "create with a claim", new: withClaim("data"), wantAsked: true},
		{name: "update naming a claim", old: withClaim(""), new: withClaim("data"), wantAsked: true},
		{name: "update naming another claim", old: withClaim("data"), new: withClaim("other"), wantAsked: true},
		{name: "update keeping the claim", old: withClaim("data"), new: withClaim("data")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Allows nothing and remembers what it was asked.
			var asked []authorizer.Attributes
			a := podAccess{authorizer: authorizer.AuthorizerFunc(func(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
				asked = append(asked, attrs)
				return authorizer.DecisionDeny, "", nil
			})}
			var err error
			if tc.old == nil {
				err = a.createValidation(nil)(ctx, tc.new)
			} else {
				err = a.updateValidation(nil)(ctx, tc.new, tc.old)
			}
			if !tc.wantAsked {
				if err != nil || len(asked) != 0 {
					t.Errorf("err %v after %d access reviews, want none", err, len(asked))
				}
				return
			}
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `cannot create pods in namespace "ns"`) ||
				!strings.Contains(err.Error(), "spec.etcdPersistentVolumeClaimName") {
				t.Errorf("err = %v, want a 403 naming create pods and the field", err)
			}
			if len(asked) != 1 || asked[0].GetVerb() != "create" || asked[0].GetResource() != "pods" ||
				asked[0].GetNamespace() != "ns" || asked[0].GetUser().GetName() != "tenant" {
				t.Errorf("access reviews %+v, want one: tenant create pods in ns", asked)
			}
		})
	}
}

// TestHostingSecretNeedsGet: naming the hosting cluster's kubeconfig Secret
// needs the caller's get on it, as the other Secrets a spec names do; a
// refusal is a 403 naming the Secret and spec.hosting.secretName, and an
// update that keeps it is not checked again.
func TestHostingSecretNeedsGet(t *testing.T) {
	ctx := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "tenant"})
	hosted := func() *sim.Simulator {
		s := &sim.Simulator{Spec: sim.SimulatorSpec{Image: version.SimulatorImage(),
			Hosting: &sim.SimulatorHosting{SecretName: "cluster-b", Namespace: "sims", Route: sim.SimulatorHostingRoutePodsProxy}}}
		s.Name, s.Namespace = "s", "ns"
		return s
	}
	for _, decision := range []authorizer.Decision{authorizer.DecisionAllow, authorizer.DecisionDeny} {
		var asked []authorizer.Attributes
		a := podAccess{authorizer: authorizer.AuthorizerFunc(func(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
			asked = append(asked, attrs)
			return decision, "no RBAC", nil
		})}
		err := a.createValidation(nil)(ctx, hosted())
		if len(asked) != 1 || asked[0].GetVerb() != "get" || asked[0].GetResource() != "secrets" || asked[0].GetName() != "cluster-b" ||
			asked[0].GetNamespace() != "ns" || asked[0].GetUser().GetName() != "tenant" || asked[0].GetAPIGroup() != "" {
			t.Errorf("access reviews %+v, want one: tenant get secrets cluster-b in ns", asked)
		}
		if decision == authorizer.DecisionAllow {
			if err != nil {
				t.Errorf("allowed: %v", err)
			}
			continue
		}
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `user "tenant" cannot get secrets cluster-b in namespace "ns"`) ||
			!strings.Contains(err.Error(), "spec.hosting.secretName") || !strings.Contains(err.Error(), `simulators.sim.x-k8s.io "s"`) {
			t.Errorf("err = %v, want a 403 for the simulator naming get secrets cluster-b and spec.hosting.secretName", err)
		}
	}

	var asked int
	a := podAccess{authorizer: authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		asked++
		return authorizer.DecisionDeny, "", nil
	})}
	updated := hosted()
	updated.Labels = map[string]string{"team": "a"}
	if err := a.updateValidation(nil)(ctx, updated, hosted()); err != nil || asked != 0 {
		t.Errorf("update keeping spec.hosting: err %v after %d access reviews, want none", err, asked)
	}
}
