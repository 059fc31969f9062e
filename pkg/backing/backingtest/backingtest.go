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

// Package backingtest reads, for tests, what a simulator has in a
// cluster: its Pods, Services, Secrets and NetworkPolicies.
package backingtest

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// Objects are the Pods, Services, Secrets and NetworkPolicies of
// namespace labelled with the simulator, by "Kind/name".
func Objects(ctx context.Context, client kubernetes.Interface, namespace, simulator string) (map[string]metav1.Object, error) {
	opts := metav1.ListOptions{LabelSelector: sim.LabelSimulator + "=" + simulator}
	out := map[string]metav1.Object{}
	pods, err := client.CoreV1().Pods(namespace).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	for i := range pods.Items {
		out["Pod/"+pods.Items[i].Name] = &pods.Items[i]
	}
	services, err := client.CoreV1().Services(namespace).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	for i := range services.Items {
		out["Service/"+services.Items[i].Name] = &services.Items[i]
	}
	secrets, err := client.CoreV1().Secrets(namespace).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	for i := range secrets.Items {
		out["Secret/"+secrets.Items[i].Name] = &secrets.Items[i]
	}
	policies, err := client.NetworkingV1().NetworkPolicies(namespace).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	for i := range policies.Items {
		out["NetworkPolicy/"+policies.Items[i].Name] = &policies.Items[i]
	}
	return out, nil
}
