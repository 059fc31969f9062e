# Images of simulator-apiserver, for machines with a Docker engine
# (`make image`). Without one, hack/ builds the same images with buildah.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/simulator-apiserver/pkg/version.Version=${VERSION}" \
    -o /out/sim-apiserver ./cmd/sim-apiserver

FROM gcr.io/distroless/static:nonroot AS sim-apiserver
COPY --from=build /out/sim-apiserver /sim-apiserver
USER 65532:65532
ENTRYPOINT ["/sim-apiserver"]
