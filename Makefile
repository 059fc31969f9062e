# simulator-apiserver — see README.md.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c

OUTPUT_DIR ?= _output
BIN_DIR    := $(OUTPUT_DIR)/bin
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
IMAGE_REPO ?= sim.x-k8s.io

.PHONY: all build tools test test-unit test-integration verify codegen image run lint clean bench

all: build

## build: compile sim-apiserver, simulator and sim-scheduler into _output/bin
build:
	BIN_DIR=$(BIN_DIR) VERSION=$(VERSION) hack/build.sh

## tools: build the pinned Kubernetes binaries (etcd, kube-apiserver, ...) into _output/bin
tools:
	hack/build-tools.sh

## codegen: regenerate deepcopy, defaults, conversion, openapi and clients
codegen:
	hack/update-codegen.sh

## verify: fail if generated code is stale or lint fails
verify: lint
	hack/verify-codegen.sh

## lint: gofmt and go vet
lint:
	hack/verify-gofmt.sh
	go vet ./...
	@# -trimpath, no cgo: the flags of hack/build-tools.sh, whose build cache of k8s.io/kubernetes this reuses.
	cd cmd/sim-scheduler && GOWORK=off CGO_ENABLED=0 go vet -trimpath ./...
	cd pkg/schedulingresult && GOWORK=off go vet ./...

## test: what CI runs — verify, unit tests, then integration tests against a real control plane
test: verify build tools
	hack/test.sh

## bench: the benchmarks of DESIGN §8 in one run; figures and ratios in _output/bench/report.md
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
