# mcpdecl as a container: a static executable on a minimal base, run as a
# non-root user, serving streamable HTTP on port 8080 with /healthz and
# /readyz for probes.
#
#   docker build -t mcpdecl .
#   docker run --rm -p 8080:8080 -v "$PWD/examples:/config:ro" mcpdecl /config/httpbin.hcl
#
# The base images can be replaced: --build-arg GO_IMAGE=… for the builder,
# --build-arg BASE_IMAGE=… for the runtime (it needs no shell). CI builds the
# runtime stage from an executable built outside (--build-context build=DIR,
# with DIR/out/mcpdecl) on scratch, since it reaches no image registry.
ARG GO_IMAGE=docker.io/library/golang:1.26-bookworm
ARG BASE_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY third_party ./third_party
RUN go mod download
COPY . .
RUN mkdir -p /out && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/mcpdecl ./cmd/mcpdecl

FROM ${BASE_IMAGE}
COPY --from=build /out/mcpdecl /mcpdecl
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/mcpdecl", "serve", "--http", "0.0.0.0:8080"]
CMD ["/config/tools.hcl"]
