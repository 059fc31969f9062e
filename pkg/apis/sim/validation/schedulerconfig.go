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
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	schedulerconfigv1 "k8s.io/kube-scheduler/config/v1"
)

// schedulerConfigDecoder decodes kubescheduler.config.k8s.io/v1 strictly:
// an unknown or duplicate field is an error, as for kube-scheduler's
// --config, so that a typo is refused at create rather than ignored by the
// variant's scheduler.
var schedulerConfigDecoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	utilruntime.Must(schedulerconfigv1.AddToScheme(scheme))
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
}()

// knownSchedulerPlugins are the plugins sim-scheduler has (generated).
var knownSchedulerPlugins = sets.New(schedulerPlugins...)

// SchedulerPlugins returns the names of the plugins a scenario's scheduler
// configuration may name, sorted.
func SchedulerPlugins() []string { return append([]string(nil), schedulerPlugins...) }

// validateSchedulerConfiguration checks a variant's
// KubeSchedulerConfiguration: it decodes strictly as
// kubescheduler.config.k8s.io/v1 (plugin args included), and names only
// plugins sim-scheduler has. The rest (weights, args' values) is
// kube-scheduler's to check when the variant's simulator starts.
func validateSchedulerConfiguration(raw *runtime.RawExtension, fldPath *field.Path) field.ErrorList {
	if raw == nil {
		return nil
	}
	data, err := rawJSON(raw)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath, "", err.Error())}
	}
	if len(data) == 0 {
		return nil
	}
	var tm runtime.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		return field.ErrorList{field.Invalid(fldPath, "", fmt.Sprintf("must be a KubeSchedulerConfiguration object: %v", err))}
	}
	want := schedulerconfigv1.SchemeGroupVersion.WithKind("KubeSchedulerConfiguration")
	var allErrs field.ErrorList
	if tm.APIVersion != want.GroupVersion().String() {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("apiVersion"), tm.APIVersion, []string{want.GroupVersion().String()}))
	}
	if tm.Kind != want.Kind {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("kind"), tm.Kind, []string{want.Kind}))
	}
	if len(allErrs) > 0 {
		return allErrs
	}
	cfg := &schedulerconfigv1.KubeSchedulerConfiguration{}
	if _, _, err := schedulerConfigDecoder.Decode(data, &want, cfg); err != nil {
		return field.ErrorList{field.Invalid(fldPath, "", fmt.Sprintf("not a valid %s: %v", want.Kind, err))}
	}
	if err := cfg.DecodeNestedObjects(schedulerConfigDecoder); err != nil {
		return field.ErrorList{field.Invalid(fldPath, "", fmt.Sprintf("not a valid %s: %v", want.Kind, err))}
	}
	for i := range cfg.Profiles {
		allErrs = append(allErrs, validateProfilePlugins(&cfg.Profiles[i], fldPath.Child("profiles").Index(i))...)
	}
	return allErrs
}

func validateProfilePlugins(p *schedulerconfigv1.KubeSchedulerProfile, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if p.Plugins != nil {
		pluginsPath := fldPath.Child("plugins")
		for _, point := range []struct {
			name string
			set  *schedulerconfigv1.PluginSet
		}{
			{"preEnqueue", &p.Plugins.PreEnqueue},
			{"queueSort", &p.Plugins.QueueSort},
			{"preFilter", &p.Plugins.PreFilter},
			{"filter", &p.Plugins.Filter},
			{"postFilter", &p.Plugins.PostFilter},
			{"preScore", &p.Plugins.PreScore},
			{"score", &p.Plugins.Score},
			{"reserve", &p.Plugins.Reserve},
			{"permit", &p.Plugins.Permit},
			{"preBind", &p.Plugins.PreBind},
			{"bind", &p.Plugins.Bind},
			{"postBind", &p.Plugins.PostBind},
			{"multiPoint", &p.Plugins.MultiPoint},
			{"placementGenerate", &p.Plugins.PlacementGenerate},
		} {
			for _, list := range []struct {
				name    string
				plugins []schedulerconfigv1.Plugin
			}{{"enabled", point.set.Enabled}, {"disabled", point.set.Disabled}} {
				for k, plugin := range list.plugins {
					if plugin.Name == "*" && list.name == "disabled" {
						continue
					}
					allErrs = append(allErrs, validatePluginName(plugin.Name, pluginsPath.Child(point.name, list.name).Index(k).Child("name"))...)
				}
			}
		}
	}
	for k, pc := range p.PluginConfig {
		allErrs = append(allErrs, validatePluginName(pc.Name, fldPath.Child("pluginConfig").Index(k).Child("name"))...)
	}
	return allErrs
}

func validatePluginName(name string, fldPath *field.Path) field.ErrorList {
	if knownSchedulerPlugins.Has(name) {
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, name, schedulerPlugins)}
}
