# dra-scheduler image: a static binary on distroless, non-root (uid 65532),
# as manifests/install/deployment.yaml expects.
#   make image IMAGE=ghcr.io/dra-scheduler/dra-scheduler:v0.1.0
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 make build VERSION=$VERSION

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/bin/dra-scheduler /usr/local/bin/dra-scheduler
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/dra-scheduler"]
