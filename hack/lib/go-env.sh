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

# Sourced by every script that runs the go command (vet, staticcheck, the
# tests, the binaries, the pinned tools): one build configuration, no cgo
# and -trimpath, which the static binaries of the image need anyway. With
# it, and with the modules at one version each (hack/moduleversions), a
# package that several steps need is compiled once and taken from the
# build cache after that: a fresh machine compiles k8s.io/* once, not once
# per step and flag set.
export CGO_ENABLED=0
case " ${GOFLAGS:-} " in
  *" -trimpath "*) ;;
  *) export GOFLAGS="${GOFLAGS:+${GOFLAGS} }-trimpath" ;;
esac

# The modules of their own, without dependencies, that the main module and
# cmd/sim-scheduler (which links k8s.io/kubernetes) both import: vet,
# staticcheck and the tests go over each.
SHARED_MODULES=(pkg/hold pkg/schedulingresult)
