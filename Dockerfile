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

# Images of simulator-apiserver, for machines with a Docker engine
# (`make image`). Without one, hack/build-images.sh builds the same images
# with buildah.

# This tree's binaries (sim-apiserver, simulator, sim-scheduler,
# sim-control-plane), as
# `make build` makes them.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY pkg/schedulingresult/go.mod pkg/schedulingresult/
COPY pkg/hold/go.mod pkg/hold/
RUN go mod download
COPY . .
ARG VERSION=dev
RUN BIN_DIR=/out VERSION=${VERSION} hack/build.sh

# The pinned Kubernetes binaries of hack/tools (etcd, kube-apiserver,
# kube-scheduler, kwok, ...), versions stamped.
FROM golang:1.26 AS tools
WORKDIR /src
COPY hack/tools/go.mod hack/tools/go.sum hack/tools/
RUN cd hack/tools && go mod download
COPY hack/tools/ hack/tools/
COPY hack/lib/ hack/lib/
COPY hack/build-tools.sh hack/
RUN BIN_DIR=/out hack/build-tools.sh

FROM gcr.io/distroless/static:nonroot AS sim-apiserver
COPY --from=build /out/sim-apiserver /sim-apiserver
USER 65532:65532
ENTRYPOINT ["/sim-apiserver"]

# One image for a simulator Pod: the "simulator" container runs the
# entrypoint, the "etcd" container runs `etcd` from the same image. Root:
# the credentials are mounted 0400 and etcd writes its data dir.
FROM gcr.io/distroless/static AS simulator
COPY --from=build /out/simulator /out/sim-scheduler /out/sim-control-plane /usr/local/bin/
COPY --from=tools /out/kube-apiserver /out/kube-controller-manager /out/kwok /out/etcd /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/simulator"]
