#!/usr/bin/env bash
# The benchmarks of BENCHMARKS.md; not part of the tests (timings are benchmarks, never
# assertions). Builds the release binaries and prints Markdown tables.
#
#   scripts/bench.sh                        # both benchmarks, default sizes
#   scripts/bench.sh render [FLAGS]         # render at 1k, 10k and 50k ServiceMonitors (~3 min)
#   scripts/bench.sh controller [FLAGS]     # agent-operator run against testkube and the real
#                                           # control plane at 1k and 10k (~15 min); writes
#                                           # benchmarks-controller.svg
#   scripts/bench.sh yaml [FLAGS]           # render::yaml against serde-saphyr's serializer on
#                                           # the 10k metrics agent.yml (~1 min; not in `all`)
#   scripts/bench.sh --sizes 1000,10000     # flags without a benchmark name go to render
#
# FLAGS are those of the bench binary (render), the controller-bench binary (controller) or
# the yaml-bench binary (yaml);
# --help lists them. Inputs, outputs and operator logs go to target/bench/. Run it on a quiet
# machine: other builds running at the same time inflate every figure.
set -euo pipefail
cd "$(dirname "$0")/.."

which=all
case "${1:-}" in
  render | controller | yaml | all) which=$1; shift ;;
  --help | -h) sed -n '2,16p' "$0"; exit 0 ;;
  -*) which=render ;;
esac
if [ "$which" = all ] && [ $# -gt 0 ]; then
  echo "scripts/bench.sh: flags need a benchmark name (render or controller)" >&2
  exit 2
fi

render() {
  scripts/install-promtool.sh
  if [ ! -x /usr/bin/time ]; then
    # GNU time measures the peak RSS of the render process.
    echo "== installing GNU time (Debian package time)" >&2
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends time >/dev/null
  fi
  target/release/bench \
    --agent-operator target/release/agent-operator \
    --promtool "$(command -v promtool)" \
    "$@"
}

controller() {
  # The real control plane's binaries (cached after the first build); testkube runs in-process.
  scripts/build-control-plane >&2
  target/release/controller-bench --agent-operator target/release/agent-operator "$@"
}

echo "== cargo build --release (agent-operator, bench, controller-bench, yaml-bench)" >&2
cargo build --release --locked -p agent-operator -p agent-operator-bench >&2

case "$which" in
  render) render "$@" ;;
  controller) controller "$@" ;;
  yaml) target/release/yaml-bench "$@" ;;
  all)
    echo "# render"
    render
    echo
    echo "# controller"
    controller
    ;;
esac
