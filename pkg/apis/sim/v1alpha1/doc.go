// +k8s:openapi-gen=true
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=sigs.k8s.io/simulator-apiserver/pkg/apis/sim
// +k8s:defaulter-gen=TypeMeta
// +groupName=sim.x-k8s.io
// +k8s:openapi-model-package=io.x-k8s.sim.v1alpha1

// Package v1alpha1 is the v1alpha1 version of the sim.x-k8s.io API.
package v1alpha1
