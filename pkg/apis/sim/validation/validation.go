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

// Package validation holds the rules of the sim.x-k8s.io API. Every error
// carries the path of the field it is about.
package validation

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/nodetemplate"
)

// DefaultMaxNodePoolReplicas is the default upper bound of spec.replicas.
const DefaultMaxNodePoolReplicas = 20000

// Options are the server-configurable limits of validation.
type Options struct {
	// MaxNodePoolReplicas bounds a nodepool's spec.replicas.
	MaxNodePoolReplicas int32
	// Hosting admits new simulators with spec.hosting (--enable-hosting):
	// until the server runs hosted simulators, one would never start.
	Hosting bool
}

// DefaultOptions are the limits used when the server sets none; they
// admit no spec.hosting.
func DefaultOptions() Options {
	return Options{MaxNodePoolReplicas: DefaultMaxNodePoolReplicas}
}

// ValidateSimulatorName checks a simulator's name and that every host object
// named after it (sim.Simulator*Name) gets a valid name too.
func ValidateSimulatorName(name string, prefix bool) []string {
	if prefix {
		// generateName: the full name is checked once it exists.
		return apimachineryvalidation.NameIsDNSLabel(name, prefix)
	}
	errs := utilvalidation.IsDNS1123Label(name)
	if len(errs) > 0 {
		return errs
	}
	for _, msg := range utilvalidation.IsDNS1035Label(sim.SimulatorServiceName(name)) {
		errs = append(errs, fmt.Sprintf("the derived Service name %q: %s", sim.SimulatorServiceName(name), msg))
	}
	return errs
}

// ValidateSimulator validates a new simulator.
func ValidateSimulator(s *sim.Simulator, opts Options) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&s.ObjectMeta, true, ValidateSimulatorName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateSimulatorSpec(&s.Spec, field.NewPath("spec"))...)
	allErrs = append(allErrs, validateHostingEnabled(&s.Spec, opts, field.NewPath("spec"))...)
	allErrs = append(allErrs, validateSize(&s.ObjectMeta, &s.Spec, nil, nil, MaxSimulatorBytes)...)
	return allErrs
}

// ValidateSimulatorUpdate validates an update. Every spec field but
// spec.hosting may change: the objects made in one hosting cluster would be
// left behind by a move to another. A simulator made while the server
// admitted spec.hosting stays updatable (its finalizer must go) after.
func ValidateSimulatorUpdate(newObj, oldObj *sim.Simulator) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newObj.ObjectMeta, &oldObj.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateSimulatorSpec(&newObj.Spec, field.NewPath("spec"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(newObj.Spec.Hosting, oldObj.Spec.Hosting, field.NewPath("spec", "hosting"))...)
	allErrs = append(allErrs, validateSize(&newObj.ObjectMeta, &newObj.Spec, &oldObj.ObjectMeta, &oldObj.Spec, MaxSimulatorBytes)...)
	return allErrs
}

func validateSimulatorSpec(spec *sim.SimulatorSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	reserved := sim.ReservedPorts(spec.EtcdURL == "")
	ports := []struct {
		name  string
		value int32
	}{
		{"kubeAPIServerPort", spec.KubeAPIServerPort},
		{"simulatorServerPort", spec.SimulatorServerPort},
	}
	for _, p := range ports {
		path := fldPath.Child(p.name)
		allErrs = append(allErrs, invalid(path, p.value, utilvalidation.IsValidPortNum(int(p.value)))...)
		if user, ok := reserved[p.value]; ok {
			allErrs = append(allErrs, field.Invalid(path, p.value, fmt.Sprintf("port is used by %s inside the simulator Pod", user)))
		}
	}
	if spec.KubeAPIServerPort == spec.SimulatorServerPort {
		allErrs = append(allErrs, field.Duplicate(fldPath.Child("simulatorServerPort"), spec.SimulatorServerPort))
	}
	if spec.EtcdURL != "" {
		allErrs = append(allErrs, validateEtcdURL(spec.EtcdURL, fldPath.Child("etcdURL"))...)
	}
	if name := spec.EtcdTLSSecretName; name != "" {
		path := fldPath.Child("etcdTLSSecretName")
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
			allErrs = append(allErrs, field.Invalid(path, name, msg))
		}
		if u, err := url.Parse(spec.EtcdURL); spec.EtcdURL == "" || err != nil || u.Scheme != "https" {
			allErrs = append(allErrs, field.Invalid(path, name, "a client certificate is for an https spec.etcdURL"))
		}
	}
	if name := spec.EtcdPersistentVolumeClaimName; name != "" {
		path := fldPath.Child("etcdPersistentVolumeClaimName")
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
			allErrs = append(allErrs, field.Invalid(path, name, msg))
		}
		if spec.EtcdURL != "" {
			allErrs = append(allErrs, field.Invalid(path, name, "the claim holds the Pod's own etcd, which spec.etcdURL replaces: set one or the other"))
		}
	}
	seen := sets.New[string]()
	for i, origin := range spec.CORSAllowedOriginList {
		path := fldPath.Child("corsAllowedOriginList").Index(i)
		if seen.Has(origin) {
			allErrs = append(allErrs, field.Duplicate(path, origin))
			continue
		}
		seen.Insert(origin)
		allErrs = append(allErrs, validateOrigin(origin, path)...)
	}
	if spec.Image == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("image"), ""))
	} else if _, err := reference.ParseNormalizedNamed(spec.Image); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("image"), spec.Image, fmt.Sprintf("not a valid image reference: %v", err)))
	}
	if spec.PodTemplate != nil {
		allErrs = append(allErrs, validatePodTemplateMeta(spec.PodTemplate, fldPath.Child("podTemplate"))...)
	}
	if spec.Source != nil {
		allErrs = append(allErrs, validateSource(spec.Source, fldPath.Child("source"))...)
	}
	if spec.Hosting != nil {
		allErrs = append(allErrs, validateHosting(spec.Hosting, fldPath.Child("hosting"))...)
	}
	return allErrs
}

func validateHosting(h *sim.SimulatorHosting, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if h.SecretName == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("secretName"), "the Secret with the hosting cluster's kubeconfig"))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(h.SecretName, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("secretName"), h.SecretName, msg))
		}
	}
	if h.Namespace == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), "the hosting cluster's namespace of the simulator's objects"))
	} else {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(h.Namespace, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), h.Namespace, msg))
		}
	}
	switch h.Route {
	case sim.SimulatorHostingRoutePodsProxy, sim.SimulatorHostingRouteNodePort:
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("route"), h.Route,
			[]sim.SimulatorHostingRoute{sim.SimulatorHostingRoutePodsProxy, sim.SimulatorHostingRouteNodePort}))
	}
	return allErrs
}

// validateHostingEnabled refuses a new spec.hosting (at fldPath.hosting)
// while the server does not admit it (Options.Hosting).
func validateHostingEnabled(spec *sim.SimulatorSpec, opts Options, fldPath *field.Path) field.ErrorList {
	if spec.Hosting == nil || opts.Hosting {
		return nil
	}
	return field.ErrorList{field.Forbidden(fldPath.Child("hosting"), "hosting clusters are not enabled on this server (--enable-hosting)")}
}

// Bounds of a source.
const (
	// MaxSourceQPS bounds the read rate on a source: a mirror is a guest there.
	MaxSourceQPS = 1000
	// MaxSourceNamespaces bounds spec.source.namespaces (one watch each).
	MaxSourceNamespaces = 100
)

func validateSource(src *sim.SimulatorSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if src.SecretName == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("secretName"), "the Secret with the source's credentials"))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(src.SecretName, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("secretName"), src.SecretName, msg))
		}
	}
	switch src.Mode {
	case sim.SourceModeOnce, sim.SourceModeSync:
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("mode"), src.Mode, []sim.SourceMode{sim.SourceModeOnce, sim.SourceModeSync}))
	}
	if src.QPS < 1 || src.QPS > MaxSourceQPS {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("qps"), src.QPS, fmt.Sprintf("must be from 1 to %d", MaxSourceQPS)))
	}
	if len(src.Namespaces) > MaxSourceNamespaces {
		allErrs = append(allErrs, field.TooMany(fldPath.Child("namespaces"), len(src.Namespaces), MaxSourceNamespaces))
	}
	seen := sets.New[string]()
	for i, ns := range src.Namespaces {
		path := fldPath.Child("namespaces").Index(i)
		if seen.Has(ns) {
			allErrs = append(allErrs, field.Duplicate(path, ns))
			continue
		}
		seen.Insert(ns)
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(ns, false) {
			allErrs = append(allErrs, field.Invalid(path, ns, msg))
		}
	}
	if src.LabelSelector != nil {
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(src.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("labelSelector"))...)
	}
	return allErrs
}

// validatePodTemplateMeta checks what the Pod takes from the template's
// metadata. The template's spec is checked as a whole by the host, when the
// generated Pod is dry-run created.
func validatePodTemplateMeta(t *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	metaPath := fldPath.Child("metadata")
	allErrs := metav1validation.ValidateLabels(t.Labels, metaPath.Child("labels"))
	allErrs = append(allErrs, apimachineryvalidation.ValidateAnnotations(t.Annotations, metaPath.Child("annotations"))...)
	if t.Name != "" {
		allErrs = append(allErrs, field.Forbidden(metaPath.Child("name"), "the Pod is named after the simulator"))
	}
	if t.Namespace != "" {
		allErrs = append(allErrs, field.Forbidden(metaPath.Child("namespace"), "the Pod lives in the simulator's namespace"))
	}
	return allErrs
}

func validateEtcdURL(raw string, fldPath *field.Path) field.ErrorList {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(fldPath, raw, fmt.Sprintf("not a URL: %v", err))}
	case u.Scheme != "http" && u.Scheme != "https":
		return field.ErrorList{field.NotSupported(fldPath.Child("scheme"), u.Scheme, []string{"http", "https"})}
	case u.Hostname() == "":
		return field.ErrorList{field.Invalid(fldPath, raw, "must name a host")}
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.Fragment != "", u.User != nil:
		return field.ErrorList{field.Invalid(fldPath, raw, "must be scheme://host[:port] only: no user, path, query or fragment")}
	}
	return validateURLPort(u, raw, fldPath)
}

func validateOrigin(raw string, fldPath *field.Path) field.ErrorList {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(fldPath, raw, fmt.Sprintf("not a URL: %v", err))}
	case u.Scheme != "http" && u.Scheme != "https":
		return field.ErrorList{field.Invalid(fldPath, raw, "an origin must start with http:// or https://")}
	case u.Hostname() == "":
		return field.ErrorList{field.Invalid(fldPath, raw, "an origin must name a host")}
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return field.ErrorList{field.Invalid(fldPath, raw, "an origin is scheme://host[:port] only: no user, path, query or fragment")}
	}
	return validateURLPort(u, raw, fldPath)
}

func validateURLPort(u *url.URL, raw string, fldPath *field.Path) field.ErrorList {
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || len(utilvalidation.IsValidPortNum(n)) > 0 {
			return field.ErrorList{field.Invalid(fldPath, raw, "port must be between 1 and 65535")}
		}
	}
	return nil
}

// ValidateNodePool validates a new nodepool.
func ValidateNodePool(np *sim.NodePool, opts Options) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&np.ObjectMeta, true, nodePoolNameValidator(opts), field.NewPath("metadata"))
	allErrs = append(allErrs, validateNodePoolSpec(&np.Spec, np.Name, opts, field.NewPath("spec"))...)
	allErrs = append(allErrs, validateSize(&np.ObjectMeta, &np.Spec, nil, nil, MaxNodePoolBytes)...)
	return allErrs
}

// ValidateNodePoolUpdate validates an update; spec.simulatorName is immutable.
func ValidateNodePoolUpdate(newObj, oldObj *sim.NodePool, opts Options) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newObj.ObjectMeta, &oldObj.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateNodePoolSpec(&newObj.Spec, newObj.Name, opts, field.NewPath("spec"))...)
	allErrs = append(allErrs, validateSize(&newObj.ObjectMeta, &newObj.Spec, &oldObj.ObjectMeta, &oldObj.Spec, MaxNodePoolBytes)...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(newObj.Spec.SimulatorName, oldObj.Spec.SimulatorName, field.NewPath("spec", "simulatorName"))...)
	return allErrs
}

// nodePoolNameValidator checks a pool's name and that its last Node's name
// (sim.NodeName) is still a valid hostname label.
func nodePoolNameValidator(opts Options) apimachineryvalidation.ValidateNameFunc {
	return func(name string, prefix bool) []string {
		if prefix {
			return apimachineryvalidation.NameIsDNSLabel(name, prefix)
		}
		if errs := utilvalidation.IsDNS1123Label(name); len(errs) > 0 {
			return errs
		}
		last := sim.NodeName(name, int(max(opts.MaxNodePoolReplicas-1, 0)))
		if len(last) > utilvalidation.DNS1123LabelMaxLength {
			return []string{fmt.Sprintf("too long: the name of the pool's last Node, %q, must be no more than %d characters", last, utilvalidation.DNS1123LabelMaxLength)}
		}
		return nil
	}
}

// ValidateNodePoolStatusUpdate validates a status write by the reconciler.
func ValidateNodePoolStatusUpdate(newObj, oldObj *sim.NodePool) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newObj.ObjectMeta, &oldObj.ObjectMeta, field.NewPath("metadata"))
	statusPath := field.NewPath("status")
	for _, f := range []struct {
		name  string
		value int32
	}{{"replicas", newObj.Status.Replicas}, {"readyReplicas", newObj.Status.ReadyReplicas}} {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(f.value), statusPath.Child(f.name))...)
	}
	allErrs = append(allErrs, metav1validation.ValidateConditions(newObj.Status.Conditions, statusPath.Child("conditions"))...)
	return allErrs
}

func validateNodePoolSpec(spec *sim.NodePoolSpec, pool string, opts Options, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.SimulatorName == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("simulatorName"), ""))
	} else {
		allErrs = append(allErrs, invalid(fldPath.Child("simulatorName"), spec.SimulatorName, ValidateSimulatorName(spec.SimulatorName, false))...)
	}
	var most int32
	if spec.Replicas != nil {
		most = *spec.Replicas
	}
	allErrs = append(allErrs, validatePoolNodes(spec.Replicas, most, &spec.Template, pool, opts, fldPath)...)
	return allErrs
}

// validatePoolNodes checks a pool's replicas and its template, rendered for
// the first Node and the last of the most (>= replicas) it will have.
func validatePoolNodes(replicas *int32, most int32, template *sim.NodeTemplate, pool string, opts Options, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if replicas == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("replicas"), ""))
	} else if r := *replicas; r < 0 || r > opts.MaxNodePoolReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("replicas"), r, fmt.Sprintf("must be between 0 and %d", opts.MaxNodePoolReplicas)))
	}
	// The first and last Nodes are rendered; the bounds cover the others.
	nodes := []nodetemplate.Values{{Index: 0, Name: sim.NodeName(pool, 0), Pool: pool}}
	if most = min(most, opts.MaxNodePoolReplicas); most > 1 {
		last := int(most) - 1
		nodes = append(nodes, nodetemplate.Values{Index: last, Name: sim.NodeName(pool, last), Pool: pool})
	}
	allErrs = append(allErrs, validateNodeTemplate(template, nodes, fldPath.Child("template"))...)
	return allErrs
}

// The bytes a rendered Node may hold: what its template adds, and room for
// what the Node builder adds (its name, hostname, os and arch labels, the
// pool's marks), so that every Node of a valid template fits in
// sim.MaxNodeBytes.
const (
	maxNodeTemplateBytes = sim.MaxNodeBytes - 8<<10
	// mapEntryBytes is the encoding overhead of a label, an annotation, a
	// taint or a resource, as stored and as sent.
	mapEntryBytes = 16
)

// validateNodeTemplate checks the template's keys and values; its values,
// templates, rendered for nodes; and that what any Node renders fits.
func validateNodeTemplate(t *sim.NodeTemplate, nodes []nodetemplate.Values, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	size := 0
	metaPath := fldPath.Child("metadata")
	// Keys are literal and recorded once more on the Node (the template's
	// key lists), so they count twice.
	for _, m := range []struct {
		field  string
		values map[string]string
		check  func(string) []string
	}{
		{"labels", t.Metadata.Labels, utilvalidation.IsValidLabelValue},
		{"annotations", t.Metadata.Annotations, nil},
	} {
		for k, v := range m.values {
			path := metaPath.Child(m.field).Key(k)
			allErrs = append(allErrs, invalid(path, k, utilvalidation.IsQualifiedName(k))...)
			n, errs := validateTemplateString(v, nodes, path, m.check)
			allErrs = append(allErrs, errs...)
			size += 2*len(k) + n + mapEntryBytes
		}
	}
	specPath := fldPath.Child("spec")
	n, errs := validateTemplateString(t.Spec.PodCIDR, nodes, specPath.Child("podCIDR"), isCIDR)
	allErrs = append(allErrs, errs...)
	size += 2 * n // spec.podCIDR and spec.podCIDRs
	n, errs = validateTemplateString(t.Spec.ProviderID, nodes, specPath.Child("providerID"), nil)
	allErrs = append(allErrs, errs...)
	size += n
	for i, taint := range t.Spec.Taints {
		allErrs = append(allErrs, validateTaint(taint, specPath.Child("taints").Index(i))...)
		size += len(taint.Key) + len(taint.Value) + len(taint.Effect) + mapEntryBytes
	}
	statusPath := fldPath.Child("status")
	allErrs = append(allErrs, validateResourceList(t.Status.Capacity, statusPath.Child("capacity"))...)
	allErrs = append(allErrs, validateResourceList(t.Status.Allocatable, statusPath.Child("allocatable"))...)
	for name, alloc := range t.Status.Allocatable {
		if c, ok := t.Status.Capacity[name]; ok && alloc.Cmp(c) > 0 {
			allErrs = append(allErrs, field.Invalid(statusPath.Child("allocatable").Key(string(name)), alloc.String(), fmt.Sprintf("must not exceed capacity %s", c.String())))
		}
	}
	for _, rl := range []corev1.ResourceList{t.Status.Capacity, t.Status.Allocatable} {
		for name, q := range rl {
			size += len(name) + len(q.String()) + mapEntryBytes
		}
	}
	info := t.Status.NodeInfo
	// The whole of nodeInfo, whatever fields it has.
	size += info.Size()
	if size > maxNodeTemplateBytes {
		e := field.TooLong(fldPath, "", maxNodeTemplateBytes)
		e.Detail += fmt.Sprintf(": its labels, annotations, taints, resources and node info may render up to %d bytes per Node", size)
		allErrs = append(allErrs, e)
	}
	return allErrs
}

// validateTemplateString parses s as a node template, renders it for nodes
// and checks each value with check, if given. It returns the most bytes s
// renders for any Node.
func validateTemplateString(s string, nodes []nodetemplate.Values, fldPath *field.Path, check func(string) []string) (int, field.ErrorList) {
	if s == "" {
		return 0, nil
	}
	t, err := nodetemplate.Parse(s)
	if err != nil {
		return len(s), field.ErrorList{field.Invalid(fldPath, s, fmt.Sprintf("not a valid template: %v", err))}
	}
	for _, v := range nodes {
		out, err := t.Render(v)
		if err != nil {
			return t.Bound(), field.ErrorList{field.Invalid(fldPath, s, fmt.Sprintf("template fails for Node %d: %v", v.Index, err))}
		}
		if check == nil {
			continue
		}
		if msgs := check(out); len(msgs) > 0 {
			var allErrs field.ErrorList
			for _, msg := range msgs {
				allErrs = append(allErrs, field.Invalid(fldPath, s, fmt.Sprintf("for Node %d it gives %q: %s", v.Index, out, msg)))
			}
			return t.Bound(), allErrs
		}
	}
	return t.Bound(), nil
}

func isCIDR(s string) []string {
	if err := utilvalidation.IsValidCIDR(field.NewPath(""), s); len(err) > 0 {
		return []string{"must be a CIDR such as 10.0.0.0/24"}
	}
	return nil
}

var taintEffects = []string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}

func validateTaint(t corev1.Taint, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	allErrs = append(allErrs, invalid(fldPath.Child("key"), t.Key, utilvalidation.IsQualifiedName(t.Key))...)
	if t.Value != "" {
		allErrs = append(allErrs, invalid(fldPath.Child("value"), t.Value, utilvalidation.IsValidLabelValue(t.Value))...)
	}
	if !sets.New(taintEffects...).Has(string(t.Effect)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("effect"), t.Effect, taintEffects))
	}
	return allErrs
}

func validateResourceList(rl corev1.ResourceList, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for name, q := range rl {
		path := fldPath.Key(string(name))
		allErrs = append(allErrs, invalid(path, name, utilvalidation.IsQualifiedName(string(name)))...)
		if q.Sign() < 0 {
			allErrs = append(allErrs, field.Invalid(path, q.String(), "must be greater than or equal to 0"))
		}
	}
	return allErrs
}

// invalid turns a validator's messages into at most one error for the field.
func invalid(fldPath *field.Path, value interface{}, msgs []string) field.ErrorList {
	if len(msgs) == 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, value, strings.Join(msgs, "; "))}
}
