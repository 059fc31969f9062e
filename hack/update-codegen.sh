#!/usr/bin/env bash
# Copyright 2026 The Kubernetes Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# Regenerates everything under pkg/generated and the zz_generated files of
# pkg/apis with k8s.io/code-generator at the version go.mod pins.
set -o errexit -o nounset -o pipefail

SCRIPT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
# shellcheck source=hack/lib/go-env.sh
source "${SCRIPT_ROOT}/hack/lib/go-env.sh"
cd "${SCRIPT_ROOT}"
# `go list -m` does not download: on an empty module cache .Dir is empty.
# `go mod download` fetches the pinned version first (a no-op when present).
go mod download k8s.io/code-generator
CODEGEN_PKG="$(go list -m -f '{{.Dir}}' k8s.io/code-generator)"
if [[ ! -f "${CODEGEN_PKG}/kube_codegen.sh" ]]; then
  echo "k8s.io/code-generator not found in the module cache (got '${CODEGEN_PKG}')" >&2
  exit 1
fi
THIS_PKG="sigs.k8s.io/simulator-apiserver"
BOILERPLATE="${SCRIPT_ROOT}/hack/boilerplate.go.txt"

# kube_codegen.sh installs the generators into GOBIN: keep them in our
# gitignored output dir instead of the user's ~/go/bin.
export GOBIN="${GOBIN:-${SCRIPT_ROOT}/_output/codegen-bin}"
# Types we reference but do not own: described in our OpenAPI, never written to.
export KUBE_CODEGEN_READONLY_PKGS=(k8s.io/api/core/v1 k8s.io/api/autoscaling/v1 k8s.io/apimachinery/pkg/util/intstr)

# shellcheck source=/dev/null
source "${CODEGEN_PKG}/kube_codegen.sh"

kube::codegen::gen_helpers \
    --boilerplate "${BOILERPLATE}" \
    "${SCRIPT_ROOT}/pkg/apis"

kube::codegen::gen_openapi \
    --output-dir "${SCRIPT_ROOT}/pkg/generated/openapi" \
    --output-pkg "${THIS_PKG}/pkg/generated/openapi" \
    --output-model-name-file "zz_generated.model_name.go" \
    --report-filename "${SCRIPT_ROOT}/hack/api-violations.list" \
    --update-report \
    --extra-pkgs k8s.io/api/core/v1 \
    --extra-pkgs k8s.io/api/autoscaling/v1 \
    --extra-pkgs k8s.io/apimachinery/pkg/util/intstr \
    --boilerplate "${BOILERPLATE}" \
    "${SCRIPT_ROOT}/pkg/apis"

kube::codegen::gen_client \
    --with-watch \
    --with-applyconfig \
    --applyconfig-openapi-schema <(go run "${THIS_PKG}/hack/models-schema") \
    --output-dir "${SCRIPT_ROOT}/pkg/generated" \
    --output-pkg "${THIS_PKG}/pkg/generated" \
    --boilerplate "${BOILERPLATE}" \
    "${SCRIPT_ROOT}/pkg/apis"

# The bootstrap RBAC policy and system PriorityClasses the simulator stores
# into a new simulator's etcd (cmd/simulator/internal/bootstrapseed): kube-apiserver's
# own, from the k8s.io/kubernetes in hack/tools/go.mod that
# hack/build-tools.sh builds kube-apiserver from.
POLICY="${SCRIPT_ROOT}/cmd/simulator/internal/bootstrapseed/zz_generated.bootstrap_objects.json"
(cd "${SCRIPT_ROOT}/hack/tools" && go run ./bootstrapobjects) >"${POLICY}.tmp"
mv "${POLICY}.tmp" "${POLICY}"

# The scheduler plugins a scenario's scheduler configurations may name
# (pkg/apis/sim/validation): the in-tree registry of the same k8s.io/kubernetes.
PLUGINS="${SCRIPT_ROOT}/pkg/apis/sim/validation/zz_generated.scheduler_plugins.go"
(cd "${SCRIPT_ROOT}/hack/tools" && go run ./schedulerplugins "${BOILERPLATE}") >"${PLUGINS}.tmp"
mv "${PLUGINS}.tmp" "${PLUGINS}"
