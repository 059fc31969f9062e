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

package schedulingresult

import "strings"

// The annotations the scheduler puts on a Pod with its result. The
// upstream ones are kube-scheduler-simulator's, so that its tools read our
// Pods; SummaryAnnotation is the compact form, written always. Named here,
// beside the result's format, because the simulator reads them too: a Pod
// it copies from elsewhere must not carry another scheduler's result, and
// one it recreates keeps its own.
const (
	AnnotationPrefix        = "kube-scheduler-simulator.sigs.k8s.io/"
	SelectedNodeAnnotation  = AnnotationPrefix + "selected-node"
	ResultHistoryAnnotation = AnnotationPrefix + "result-history"
	SummaryAnnotation       = "sim.x-k8s.io/scheduling-result"
)

// IsAnnotation says whether key is one of the scheduler's result
// annotations.
func IsAnnotation(key string) bool {
	return key == SummaryAnnotation || strings.HasPrefix(key, AnnotationPrefix)
}
