# syntax=docker/dockerfile:1
#
# The agent-operator image: `docker build -t agent-operator:dev .` from the repository root
# (any OCI builder reading Dockerfiles works the same: podman, buildah, kaniko). See
# docs/getting-started.md for pushing it and pointing deploy/ at it.
#
# Stage 1 compiles the one binary in release mode against the committed Cargo.lock; stage 2
# copies it into a distroless image: glibc and CA certificates, no shell, no package manager,
# running as the image's unprivileged user (65532). TLS is rustls, so no OpenSSL is needed.

ARG RUST_VERSION=1.95

FROM docker.io/library/rust:${RUST_VERSION}-bookworm AS build
WORKDIR /src
# Only what the build reads (.dockerignore keeps the rest, target/ above all, out of the context).
COPY Cargo.toml Cargo.lock ./
COPY crates ./crates
# The caches keep the registry and the compiled dependencies between builds; the binary is
# copied out of the cached target directory in the same step.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p agent-operator --bin agent-operator \
    && install -D -m 0755 target/release/agent-operator /out/agent-operator

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/agent-operator /usr/local/bin/agent-operator
USER 65532:65532
# Nothing is written to disk: the manifests run it with a read-only root filesystem.
ENTRYPOINT ["/usr/local/bin/agent-operator"]
CMD ["run"]
