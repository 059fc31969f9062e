# Images of simulator-apiserver, for machines with a Docker engine
# (`make image`). Without one, hack/build-images.sh builds the same images
# with buildah.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY pkg/schedulingresult/go.mod pkg/schedulingresult/
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/simulator-apiserver/pkg/version.Version=${VERSION}" \
    -o /out/ ./cmd/sim-apiserver ./cmd/simulator

# The pinned Kubernetes binaries of hack/tools (etcd, kube-apiserver,
# kube-scheduler, kwok, ...) and sim-scheduler (cmd/sim-scheduler, its own
# module), versions stamped.
FROM golang:1.26 AS tools
WORKDIR /src
COPY hack/tools/go.mod hack/tools/go.sum hack/tools/
RUN cd hack/tools && go mod download
COPY cmd/sim-scheduler/go.mod cmd/sim-scheduler/go.sum cmd/sim-scheduler/
COPY pkg/schedulingresult/go.mod pkg/schedulingresult/
RUN cd cmd/sim-scheduler && go mod download
COPY hack/tools/ hack/tools/
COPY cmd/sim-scheduler/ cmd/sim-scheduler/
COPY pkg/schedulingresult/ pkg/schedulingresult/
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
COPY --from=build /out/simulator /usr/local/bin/simulator
COPY --from=tools /out/kube-apiserver /out/sim-scheduler /out/kube-controller-manager /out/kwok /out/etcd /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/simulator"]
