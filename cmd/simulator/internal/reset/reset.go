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

// Package reset empties the inner cluster of what users put in it, keeping
// what the control plane made for itself.
//
// Namespaces other than the system ones are emptied of every kind their
// API serves and removed (the simulator runs no namespace controller, so
// reset finalizes them itself). In the system namespaces, the usual user
// kinds are deleted, except objects the apiserver bootstraps. Among
// cluster-scoped kinds: nodes, non-system priority classes, storage
// classes, persistent volumes, CRDs (and so their objects), webhook
// configurations and admission policies, cluster RBAC, APIServices, flow
// schemas and priority levels, and the other kinds of userKinds, except
// what kube-apiserver makes for itself. What it keeps, it counts.
package reset

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/sandbox"
)

// SystemNamespaces are kept, and only their user kinds emptied.
var SystemNamespaces = map[string]bool{
	metav1.NamespaceDefault: true, metav1.NamespaceSystem: true, metav1.NamespacePublic: true, corev1.NamespaceNodeLease: true,
}

// userKinds are the group/resource names reset deletes wherever they
// are (subject to keep). Groups are matched whatever version is served.
var userKinds = map[schema.GroupResource]bool{}

func init() {
	for group, resources := range map[string][]string{
		"": {"pods", "services", "configmaps", "secrets", "serviceaccounts", "persistentvolumeclaims",
			"replicationcontrollers", "resourcequotas", "limitranges", "endpoints", "podtemplates", "events",
			"nodes", "persistentvolumes"},
		"apps":                      {"deployments", "replicasets", "statefulsets", "daemonsets", "controllerrevisions"},
		"batch":                     {"jobs", "cronjobs"},
		"policy":                    {"poddisruptionbudgets"},
		"autoscaling":               {"horizontalpodautoscalers"},
		"networking.k8s.io":         {"networkpolicies", "ingresses", "ingressclasses"},
		"discovery.k8s.io":          {"endpointslices"},
		"coordination.k8s.io":       {"leases"},
		"rbac.authorization.k8s.io": {"roles", "rolebindings", "clusterroles", "clusterrolebindings"},
		"scheduling.k8s.io":         {"priorityclasses"},
		"storage.k8s.io":            {"storageclasses", "volumeattachments", "csistoragecapacities", "csinodes", "volumeattributesclasses"},
		"resource.k8s.io":           {"resourceclaims", "resourceclaimtemplates", "resourceslices", "deviceclasses"},
		"node.k8s.io":               {"runtimeclasses"},
		"apiextensions.k8s.io":      {"customresourcedefinitions"},
		"admissionregistration.k8s.io": {"validatingwebhookconfigurations", "mutatingwebhookconfigurations",
			"validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"},
		"apiregistration.k8s.io":       {"apiservices"},
		"flowcontrol.apiserver.k8s.io": {"flowschemas", "prioritylevelconfigurations"},
		"certificates.k8s.io":          {"certificatesigningrequests", "clustertrustbundles"},
	} {
		for _, r := range resources {
			userKinds[schema.GroupResource{Group: group, Resource: r}] = true
		}
	}
}

// bootstrapLabel marks the RBAC objects kube-apiserver creates at start.
const bootstrapLabel = "kubernetes.io/bootstrapping"

// Marks of what kube-apiserver makes for itself: its aggregator's
// APIServices of built-in groups, API Priority and Fairness's suggested
// configuration, and the default ServiceCIDR and its IPs.
const (
	automanagedLabel   = "kube-aggregator.kubernetes.io/automanaged"
	apfAutoupdate      = "apf.kubernetes.io/autoupdate-spec"
	defaultServiceCIDR = "kubernetes"
)

// keep reports whether reset leaves an object of a user kind alone: the
// objects the control plane makes for itself.
func keep(gr schema.GroupResource, obj *metav1.PartialObjectMetadata) bool {
	namespace, name := obj.Namespace, obj.Name
	if _, ok := obj.Labels[bootstrapLabel]; ok {
		return true
	}
	switch gr {
	case schema.GroupResource{Resource: "services"}, schema.GroupResource{Resource: "endpoints"},
		schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}:
		return namespace == metav1.NamespaceDefault && name == "kubernetes"
	case schema.GroupResource{Resource: "configmaps"}:
		return name == "kube-root-ca.crt" ||
			(namespace == metav1.NamespaceSystem && (name == "extension-apiserver-authentication" || strings.HasPrefix(name, "kube-apiserver-")))
	case schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}:
		// kube-apiserver identity leases.
		return namespace == metav1.NamespaceSystem
	case schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}:
		return strings.HasPrefix(name, "system-")
	case schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}:
		_, ok := obj.Labels[automanagedLabel]
		return ok
	case schema.GroupResource{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"},
		schema.GroupResource{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}:
		_, ok := obj.Annotations[apfAutoupdate]
		return ok
	case schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}:
		// The bootstrap policy is labelled (above); "system:" names are
		// the control plane's by convention; the sandbox's binding makes
		// the proxy's users cluster-admin inside.
		return strings.HasPrefix(name, "system:") || name == sandbox.BindingName
	}
	return false
}

// ResourceDiscoverer lists the kinds a server serves, in their preferred
// versions (a discovery.DiscoveryInterface does).
type ResourceDiscoverer interface {
	ServerPreferredResources() ([]*metav1.APIResourceList, error)
}

// Resetter deletes user objects from the inner cluster.
type Resetter struct {
	Discovery ResourceDiscoverer
	Metadata  metadata.Interface
	Client    kubernetes.Interface
	// Workers bounds parallel requests; zero means 8.
	Workers int
}

// Result counts deleted objects by resource ("deployments.apps"), and
// those kept, which the control plane made for itself.
type Result struct {
	Deleted map[string]int `json:"deleted"`
	Kept    map[string]int `json:"kept"`
	// SchedulerConfigurationRestored says that the scheduler configuration
	// set through the API was replaced by the simulator's own (its spec's).
	SchedulerConfigurationRestored bool `json:"schedulerConfigurationRestored"`
}

// resource is a served kind reset may delete.
type resource struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	// user is whether it is in userKinds; other kinds are only deleted in
	// non-system namespaces.
	user bool
	// collection is whether deletecollection is allowed.
	collection bool
}

// Reset deletes the user objects and returns how many of each were
// deleted. It carries on past errors and returns them all.
func (r *Resetter) Reset(ctx context.Context) (Result, error) {
	logger := klog.FromContext(ctx)
	resources, err := r.resources()
	if err != nil {
		return Result{}, err
	}
	nsList, err := r.Client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return Result{}, fmt.Errorf("listing namespaces: %w", err)
	}
	var userNamespaces []string
	for _, ns := range nsList.Items {
		if !SystemNamespaces[ns.Name] {
			userNamespaces = append(userNamespaces, ns.Name)
		}
	}

	res := Result{Deleted: map[string]int{}, Kept: map[string]int{}}
	var mu sync.Mutex
	var errs []error
	record := func(gr schema.GroupResource, c counts, err error) {
		mu.Lock()
		defer mu.Unlock()
		if c.deleted > 0 {
			res.Deleted[gr.String()] += c.deleted
		}
		if c.kept > 0 {
			res.Kept[gr.String()] += c.kept
		}
		if err != nil {
			errs = append(errs, err)
		}
	}

	// User namespaces go Terminating first, so that no controller makes
	// anything new in them; then namespaced objects, then the namespaces are
	// finalized, then cluster-scoped objects (nodes last of all, after the
	// pods bound to them).
	var terminating []string
	for _, ns := range userNamespaces {
		if err := r.deleteNamespace(ctx, ns); err != nil {
			record(schema.GroupResource{Resource: "namespaces"}, counts{}, err)
			continue
		}
		terminating = append(terminating, ns)
	}
	r.parallel(resources, func(rs resource) bool { return rs.namespaced }, func(rs resource) {
		c, err := r.deleteNamespaced(ctx, rs)
		record(rs.gvr.GroupResource(), c, err)
	})
	for _, ns := range terminating {
		err := r.finalizeNamespace(ctx, ns)
		c := counts{}
		if err == nil {
			c.deleted = 1
		}
		record(schema.GroupResource{Resource: "namespaces"}, c, err)
	}
	r.parallel(resources, func(rs resource) bool { return !rs.namespaced && rs.user }, func(rs resource) {
		c, err := r.deleteClusterScoped(ctx, rs)
		record(rs.gvr.GroupResource(), c, err)
	})
	logger.Info("Reset the cluster", "deleted", res.Deleted, "kept", res.Kept, "errors", len(errs))
	return res, errors.Join(errs...)
}

// resources lists the served kinds that can be listed and deleted, in
// their preferred versions, one entry per group/resource.
func (r *Resetter) resources() ([]resource, error) {
	lists, err := r.Discovery.ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discovering resources: %w", err)
	}
	seen := map[schema.GroupResource]bool{}
	var out []resource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, ar := range list.APIResources {
			if strings.Contains(ar.Name, "/") {
				continue
			}
			verbs := map[string]bool{}
			for _, v := range ar.Verbs {
				verbs[v] = true
			}
			gr := gv.WithResource(ar.Name).GroupResource()
			if !verbs["list"] || !verbs["delete"] || seen[gr] || gr == (schema.GroupResource{Resource: "namespaces"}) {
				continue
			}
			// events.k8s.io serves the core events again.
			if gr == (schema.GroupResource{Group: "events.k8s.io", Resource: "events"}) {
				continue
			}
			seen[gr] = true
			out = append(out, resource{
				gvr: gv.WithResource(ar.Name), namespaced: ar.Namespaced,
				user: userKinds[gr], collection: verbs["deletecollection"],
			})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].gvr.String() < out[j].gvr.String() })
	return out, nil
}

func (r *Resetter) parallel(resources []resource, filter func(resource) bool, do func(resource)) {
	workers := r.Workers
	if workers <= 0 {
		workers = 8
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for _, rs := range resources {
		if !filter(rs) {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			do(rs)
		}()
	}
	wg.Wait()
}

// counts are what reset did with the objects of one kind.
type counts struct{ deleted, kept int }

// deleteOptions delete at once: there is no kubelet to wait for.
func deleteOptions() metav1.DeleteOptions {
	return metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0), PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}
}

// deleteNamespaced deletes the objects of one namespaced kind: all of them
// in user namespaces, and, for user kinds, those keep does not protect in
// system namespaces. A namespace whose objects all go is emptied with one
// deletecollection.
func (r *Resetter) deleteNamespaced(ctx context.Context, rs resource) (counts, error) {
	list, err := r.Metadata.Resource(rs.gvr).List(ctx, metav1.ListOptions{})
	if err != nil {
		return counts{}, fmt.Errorf("listing %s: %w", rs.gvr.GroupResource(), err)
	}
	type nsObjects struct {
		remove []metav1.PartialObjectMetadata
		kept   int
	}
	var c counts
	byNamespace := map[string]*nsObjects{}
	for _, item := range list.Items {
		ns := byNamespace[item.Namespace]
		if ns == nil {
			ns = &nsObjects{}
			byNamespace[item.Namespace] = ns
		}
		system := SystemNamespaces[item.Namespace]
		if system && (!rs.user || keep(rs.gvr.GroupResource(), &item)) {
			ns.kept++
			c.kept++
			continue
		}
		ns.remove = append(ns.remove, item)
	}
	var errs []error
	for namespace, objs := range byNamespace {
		if len(objs.remove) == 0 {
			continue
		}
		client := r.Metadata.Resource(rs.gvr).Namespace(namespace)
		if err := r.removeFinalizers(ctx, client, objs.remove); err != nil {
			errs = append(errs, err)
		}
		if objs.kept == 0 && rs.collection {
			if err := client.DeleteCollection(ctx, deleteOptions(), metav1.ListOptions{}); err != nil {
				errs = append(errs, fmt.Errorf("deleting %s in %s: %w", rs.gvr.GroupResource(), namespace, err))
				continue
			}
			c.deleted += len(objs.remove)
			continue
		}
		n, err := deleteEach(ctx, client, objs.remove)
		c.deleted += n
		if err != nil {
			errs = append(errs, fmt.Errorf("deleting %s in %s: %w", rs.gvr.GroupResource(), namespace, err))
		}
	}
	return c, errors.Join(errs...)
}

func (r *Resetter) deleteClusterScoped(ctx context.Context, rs resource) (counts, error) {
	client := r.Metadata.Resource(rs.gvr)
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		return counts{}, fmt.Errorf("listing %s: %w", rs.gvr.GroupResource(), err)
	}
	var remove []metav1.PartialObjectMetadata
	for _, item := range list.Items {
		if !keep(rs.gvr.GroupResource(), &item) {
			remove = append(remove, item)
		}
	}
	c := counts{kept: len(list.Items) - len(remove)}
	if len(remove) == 0 {
		return c, nil
	}
	var errs []error
	if err := r.removeFinalizers(ctx, client, remove); err != nil {
		errs = append(errs, err)
	}
	if len(remove) == len(list.Items) && rs.collection {
		if err := client.DeleteCollection(ctx, deleteOptions(), metav1.ListOptions{}); err != nil {
			return c, fmt.Errorf("deleting %s: %w", rs.gvr.GroupResource(), errors.Join(append(errs, err)...))
		}
		c.deleted = len(remove)
		return c, errors.Join(errs...)
	}
	c.deleted, err = deleteEach(ctx, client, remove)
	if err != nil {
		errs = append(errs, fmt.Errorf("deleting %s: %w", rs.gvr.GroupResource(), err))
	}
	return c, errors.Join(errs...)
}

// removeFinalizers drops the finalizers of the objects that have some:
// their controllers are not running, so nothing else would.
func (r *Resetter) removeFinalizers(ctx context.Context, client metadata.ResourceInterface, objs []metav1.PartialObjectMetadata) error {
	var errs []error
	for _, obj := range objs {
		if len(obj.Finalizers) == 0 {
			continue
		}
		_, err := client.Patch(ctx, obj.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing the finalizers of %s/%s: %w", obj.Namespace, obj.Name, err))
		}
	}
	return errors.Join(errs...)
}

func deleteEach(ctx context.Context, client metadata.ResourceInterface, objs []metav1.PartialObjectMetadata) (int, error) {
	deleted := 0
	var errs []error
	for _, obj := range objs {
		err := client.Delete(ctx, obj.Name, deleteOptions())
		switch {
		case err == nil:
			deleted++
		case apierrors.IsNotFound(err):
		default:
			errs = append(errs, fmt.Errorf("%s: %w", obj.Name, err))
		}
	}
	return deleted, errors.Join(errs...)
}

// removeNamespace deletes an emptied namespace. Without a namespace
// controller a deleted namespace would stay Terminating for ever: reset
// clears its spec.finalizers itself, which removes a Terminating namespace.
func (r *Resetter) deleteNamespace(ctx context.Context, name string) error {
	err := r.Client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting namespace %s: %w", name, err)
	}
	return nil
}

// finalizeNamespace removes a Terminating namespace whose objects are gone
// without waiting for the namespace controller.
func (r *Resetter) finalizeNamespace(ctx context.Context, name string) error {
	namespaces := r.Client.CoreV1().Namespaces()
	ns, err := namespaces.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting namespace %s: %w", name, err)
	}
	ns.Spec.Finalizers = nil
	if _, err := namespaces.Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finalizing namespace %s: %w", name, err)
	}
	if _, err := namespaces.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("namespace %s is still there after finalizing it (finalizers %v): %v", name, ns.Finalizers, err)
	}
	return nil
}
