# Multi-stage build: a static ozdoctor binary on a distroless base.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/ozdoctor ./cmd/ozdoctor

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ozdoctor /usr/local/bin/ozdoctor
USER nonroot
ENTRYPOINT ["/usr/local/bin/ozdoctor"]
# As a sidecar: mount the configuration at /etc/ozdoctor/watch.yaml (see
# deploy/); "docker run IMAGE analyze /logs" runs a one-shot analysis.
CMD ["watch", "--config", "/etc/ozdoctor/watch.yaml"]
