# dra-scheduler image: a static binary on distroless, non-root (uid 65532),
# as manifests/install/deployment.yaml expects, with its SBOM, LICENSE,
# NOTICE and third-party license texts in /licenses.
#   make image IMAGE=ghcr.io/dra-scheduler/dra-scheduler:v0.1.0          # this machine's platform
#   make image-multiarch IMAGE=ghcr.io/dra-scheduler/dra-scheduler:v0.1.0  # linux/amd64 + linux/arm64, pushed
#
# Both base images are pinned by digest (the multi-arch index), so a build
# is reproducible and a tag moved upstream changes nothing until the digest
# here does; `make pin-images` prints the current digests of the tags.
# The build stage runs on the builder's own platform and cross-compiles
# (CGO is off), so an arm64 image builds without emulation.
FROM --platform=$BUILDPLATFORM golang:1.26.8-bookworm@sha256:dc9ad6c05acc7a88e5b71bde60a5fe3bd4b9f0db209011711b464107438a8107 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG TARGETOS
ARG TARGETARCH
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH make build VERSION=$VERSION
# The binary's CycloneDX SBOM and the license texts of the modules it links
# (cyclonedx-gomod through the module proxy; a module whose license the
# policy of pkg/release/licenses.go refuses fails the build), with LICENSE
# and NOTICE: the image's /licenses (docs/release.md).
RUN make sbom VERSION=$VERSION SBOM_BINARY=bin/dra-scheduler SBOM_OUT=/out/licenses

FROM gcr.io/distroless/static-debian12:nonroot@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab
ARG VERSION=dev
LABEL org.opencontainers.image.title="dra-scheduler" \
      org.opencontainers.image.description="kube-scheduler with the DRAAllocator plugin for Dynamic Resource Allocation" \
      org.opencontainers.image.source="https://github.com/dra-scheduler/dra-scheduler" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="$VERSION"
COPY --from=build /out/licenses/ /licenses/
COPY --from=build /src/bin/dra-scheduler /usr/local/bin/dra-scheduler
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/dra-scheduler"]
