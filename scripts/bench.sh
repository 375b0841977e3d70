#!/usr/bin/env bash
# Render benchmarks (BENCHMARKS.md): builds the release binaries, generates synthetic inputs
# at 1k, 10k and 50k ServiceMonitors, and prints Markdown tables of wall time, peak RSS,
# in-process phases, config sizes, the ratio to promtool, and the cost of re-rendering after
# one ServiceMonitor edit. Not part of the tests (timings are benchmarks, never assertions).
#
#   scripts/bench.sh                       # everything (about 3 minutes on 2 cores, after the build)
#   scripts/bench.sh --sizes 1000,10000    # any flag of the bench binary (--help lists them)
#
# Inputs and outputs go to target/bench/. Run it on a quiet machine: other builds running
# at the same time inflate every figure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-promtool.sh
if [ ! -x /usr/bin/time ]; then
  # GNU time measures the peak RSS of the render process.
  echo "== installing GNU time (Debian package time)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends time >/dev/null
fi

echo "== cargo build --release (agent-operator, bench)" >&2
cargo build --release --locked -p agent-operator -p agent-operator-bench >&2

exec target/release/bench \
  --agent-operator target/release/agent-operator \
  --promtool "$(command -v promtool)" \
  "$@"
