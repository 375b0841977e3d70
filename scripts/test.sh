#!/usr/bin/env bash
# Runs every check CI runs: formatting, lints, and every test (unit, golden, promtool,
# end-to-end on testkube and on the real control plane). Installs or builds what the tests
# need first.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-promtool.sh
# helm, for the Helm chart's tests (crates/cli/tests/deploy.rs): built once from its pinned Go
# module and cached, here rather than inside the first test that needs it.
scripts/build-helm > /dev/null

# The toolchain may come without clippy or rustfmt (nothing can be fetched for rustup on some
# machines): then that one check is skipped, loudly, and everything else still runs.
missing_check() {
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
  echo "!! SKIPPED: $1 is not installed for this Rust toolchain; that check did not run" >&2
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
}

echo "== cargo fmt --check"
if cargo fmt --version > /dev/null 2>&1; then
  cargo fmt --all -- --check
else
  missing_check rustfmt
fi
echo "== cargo clippy"
if cargo clippy --version > /dev/null 2>&1; then
  cargo clippy --workspace --all-targets --locked -- -D warnings
else
  missing_check clippy
fi
# Built (or found in the cache) before the tests, so its time shows on its own and a failure
# is reported as what it is rather than from inside a test.
echo "== control plane (etcd, kube-apiserver, kube-controller-manager)"
start=$SECONDS
scripts/build-control-plane
echo "control plane binaries ready in $((SECONDS - start))s"
echo "== cargo test"
cargo test --workspace --locked
