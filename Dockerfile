# A static, non-root image for one ARTT command (default artt-scaler):
#   docker build -t ghcr.io/artt-dev/artt-scaler:v0.1.0 .
#   docker build --build-arg CMD=artt-traffic -t ghcr.io/artt-dev/artt-traffic:v0.1.0 .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY internal/promtest/go.mod internal/promtest/
RUN go mod download
COPY . .
ARG CMD=artt-scaler
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/app ./cmd/${CMD}

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/app /app
USER 65532:65532
ENTRYPOINT ["/app"]
