package install

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"

	simfuzzer "sigs.k8s.io/simulator-apiserver/pkg/apis/sim/fuzzer"
)

// TestRoundTripTypes fuzzes every kind through internal → v1alpha1 → internal
// in JSON and YAML and fails on any field that does not survive.
func TestRoundTripTypes(t *testing.T) {
	roundtrip.RoundTripTestForAPIGroup(t, Install, simfuzzer.Funcs)
}
