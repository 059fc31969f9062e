//go:build tools

// Package hack records the code generators the scripts in this folder run, so
// that go.mod pins them.
package hack

import (
	_ "k8s.io/code-generator"
	_ "k8s.io/kube-openapi/cmd/openapi-gen"
)
