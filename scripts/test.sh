#!/usr/bin/env bash
# Runs every check CI runs: formatting, lints, and every test (unit, golden, promtool,
# end-to-end). Installs what the tests need first.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-promtool.sh
# helm, for the Helm chart's tests (crates/cli/tests/deploy.rs): built once from its pinned Go
# module and cached, here rather than inside the first test that needs it.
scripts/build-helm > /dev/null

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --workspace --locked
