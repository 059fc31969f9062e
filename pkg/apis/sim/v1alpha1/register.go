package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group served by simulator-apiserver.
const GroupName = "sim.x-k8s.io"

// SchemeGroupVersion is the group version used to register these objects.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

var (
	// SchemeBuilder collects the functions that add this version to a scheme.
	SchemeBuilder      runtime.SchemeBuilder
	localSchemeBuilder = &SchemeBuilder
	// AddToScheme adds this version's types, defaults and conversions to a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
)

func init() {
	// Generated functions register themselves in the generated files; only
	// hand-written ones are listed here, so the package builds without them.
	localSchemeBuilder.Register(addKnownTypes, addDefaultingFuncs, addFieldLabelConversionFuncs)
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&Simulator{},
		&SimulatorList{},
		&NodePool{},
		&NodePoolList{},
		&SimulatorProxyOptions{},
		&SimulatorKubeconfigOptions{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}

// Resource returns a group-qualified GroupResource.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}
