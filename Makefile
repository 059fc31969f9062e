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

# simulator-apiserver — see README.md.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c

OUTPUT_DIR ?= _output
BIN_DIR    := $(OUTPUT_DIR)/bin
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
IMAGE_REPO ?= sim.x-k8s.io

.PHONY: all build tools test verify codegen image run lint clean bench

all: build

## build: compile sim-apiserver, simulator, sim-scheduler and kubectl-sim into _output/bin
build:
	BIN_DIR=$(BIN_DIR) VERSION=$(VERSION) hack/build.sh

## tools: build the pinned Kubernetes binaries (etcd, kube-apiserver, ...) into _output/bin
tools:
	hack/build-tools.sh

## codegen: regenerate deepcopy, defaults, conversion, openapi and clients
codegen:
	hack/update-codegen.sh

## verify: fail if generated code is stale, an import breaks the layering, two
## modules pin one dependency at two versions, a go.mod is not tidy, a file
## lacks its licence header, .PHONY is wrong, or lint fails
verify: lint
	hack/verify-codegen.sh
	hack/verify-boilerplate.sh
	hack/verify-makefile.sh
	hack/verify-layering.sh
	hack/verify-gomod.sh

## lint: gofmt, go vet and staticcheck over every module
lint:
	hack/verify-gofmt.sh
	hack/verify-vet.sh
	hack/verify-staticcheck.sh

## test: unit tests, integration tests against a real control plane, then e2e
## tests on a cluster with a node (CI runs verify first, .ci/run)
test: build tools
	hack/test.sh

## bench: the benchmarks of docs/performance.md in one run; figures and ratios in _output/bench/report.md
bench: build tools
	hack/bench.sh

## image: docker build of the images (for users with a Docker engine)
image:
	docker build --build-arg VERSION=$(VERSION) --target sim-apiserver -t $(IMAGE_REPO)/sim-apiserver:$(VERSION) .
	docker build --build-arg VERSION=$(VERSION) --target simulator -t $(IMAGE_REPO)/simulator:$(VERSION) .

## run: start a local host cluster with sim-apiserver registered (foreground; Ctrl-C stops it)
run: build tools
	hack/local-up.sh

clean:
	rm -rf $(OUTPUT_DIR)
