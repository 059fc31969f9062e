package v1alpha1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
)

// addFieldLabelConversionFuncs declares the field selectors each kind supports.
// Status is computed on read and not stored, so no status field is selectable.
func addFieldLabelConversionFuncs(scheme *runtime.Scheme) error {
	if err := scheme.AddFieldLabelConversionFunc(SchemeGroupVersion.WithKind("Simulator"),
		func(label, value string) (string, string, error) {
			switch label {
			case "metadata.name", "metadata.namespace":
				return label, value, nil
			}
			return "", "", fmt.Errorf("field label not supported: %s", label)
		}); err != nil {
		return err
	}
	return scheme.AddFieldLabelConversionFunc(SchemeGroupVersion.WithKind("NodePool"),
		func(label, value string) (string, string, error) {
			switch label {
			case "metadata.name", "metadata.namespace", "spec.simulatorName":
				return label, value, nil
			}
			return "", "", fmt.Errorf("field label not supported: %s", label)
		})
}
