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
#   scripts/bench.sh edit-core [FLAGS]      # a controller's discover + plan after one
#                                           # ServiceMonitor edit, in-process at 10k, discovery
#                                           # whole and from the last one (~1 min; not in `all`)
#   scripts/bench.sh alloy-native [FLAGS]   # the native Alloy metrics config against the
#                                           # static one Alloy converts, rendered at 10k
#                                           # ServiceMonitors (~1 min; not in `all`)
#   scripts/bench.sh versus-upstream [FLAGS]
#                                           # ours and the upstream Grafana Agent Operator on
#                                           # the same input, each on a fresh control plane
#                                           # (upstream needs minutes per edit at 10k; not in
#                                           # `all`); writes benchmarks-versus-upstream.svg
#   scripts/bench.sh real-node [RUNS]       # the operator installed on a real node
#                                           # (scripts/cluster), agents shipping to Prometheus:
#                                           # bring-up, GrafanaAgent -> first sample, edit ->
#                                           # changed sample; RUNS runs (default 3, ~5 min
#                                           # each) of crates/cli/tests/real_node.rs's
#                                           # kustomize scenario, its [timing] lines as a table
#                                           # (needs root; not in `all`)
#   scripts/bench.sh --sizes 1000,10000     # flags without a benchmark name go to render
#
# FLAGS are those of the bench binary (render), the controller-bench binary (controller),
# the yaml-bench binary (yaml), the edit-core-bench binary (edit-core), the alloy-native-bench
# binary (alloy-native) or the
# versus-upstream binary (versus-upstream);
# --help lists them. Inputs, outputs and operator logs go to target/bench/. Run it on a quiet
# machine: other builds running at the same time inflate every figure.
set -euo pipefail
cd "$(dirname "$0")/.."
# The release binaries: where cargo puts them (CARGO_TARGET_DIR, as scripts/test.sh sets it,
# or the checkout's target/).
release=${CARGO_TARGET_DIR:-target}/release

which=all
case "${1:-}" in
  render | controller | yaml | edit-core | alloy-native | versus-upstream | real-node | all) which=$1; shift ;;
  --help | -h) sed -n '2,31p' "$0"; exit 0 ;;
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
  "$release/bench" \
    --agent-operator "$release/agent-operator" \
    --promtool "$(command -v promtool)" \
    "$@"
}

controller() {
  # The real control plane's binaries (cached after the first build); testkube runs in-process.
  scripts/build-control-plane >&2
  "$release/controller-bench" --agent-operator "$release/agent-operator" "$@"
}

versus_upstream() {
  scripts/build-control-plane >&2
  # The upstream operator v0.44.8, built from its Go module (cached after the first build).
  upstream_dir=$(scripts/build-grafana-agent)
  "$release/versus-upstream" --agent-operator "$release/agent-operator" \
    --upstream "$upstream_dir/grafana-agent-operator" "$@"
}

# The figures a user of the installed operator waits for. The test binary's operator (a debug
# build, as in CI: the image is what the tests run) does milliseconds of work in each; the rest
# is the cluster, the kubelet, the agents and Prometheus. Printed, never asserted.
real_node() {
  local runs=${1:-3} run log
  local test=kustomize_install_agents_scrape_and_ship_to_prometheus
  log=$(mktemp -d "${TMPDIR:-/tmp}/bench-real-node.XXXXXX")
  echo "== cargo test -p agent-operator --test real_node (build)" >&2
  cargo test --locked -p agent-operator --test real_node --no-run >&2
  local before
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  for run in $(seq "$runs"); do
    echo "== run $run of $runs" >&2
    cargo test --locked -q -p agent-operator --test real_node -- --exact "$test" --nocapture \
      > "$log/run-$run.log" 2>&1 || { tail -n 40 "$log/run-$run.log" >&2; exit 1; }
  done
  echo "$runs runs on $(nproc) CPUs; load average (1/5/15 min) before: $before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  # "[timing] WHAT: SECONDS s" -> one row per WHAT, one column per run, and the median.
  python3 - "$log"/run-*.log << 'PY'
import re, statistics, sys
rows = {}
for i, path in enumerate(sorted(sys.argv[1:])):
    for line in open(path, errors="replace"):
        m = re.match(r"\[timing\] (.*): ([0-9.]+) s$", line.strip())
        if m:
            rows.setdefault(m.group(1), {})[i] = float(m.group(2))
runs = len(sys.argv) - 1
print("| step | " + " | ".join(f"run {i + 1}" for i in range(runs)) + " | median |")
print("|---|" + "---:|" * (runs + 1))
for what, values in rows.items():
    cells = [f"{values[i]:.1f} s" if i in values else "-" for i in range(runs)]
    print(f"| {what} | " + " | ".join(cells) + f" | {statistics.median(values.values()):.1f} s |")
PY
  rm -rf "$log"
}

if [ "$which" = real-node ]; then
  real_node "$@"
  exit 0
fi

echo "== cargo build --release (agent-operator, bench, controller-bench, yaml-bench, edit-core-bench, alloy-native-bench, versus-upstream)" >&2
cargo build --release --locked -p agent-operator -p agent-operator-bench >&2

case "$which" in
  render) render "$@" ;;
  controller) controller "$@" ;;
  yaml) "$release/yaml-bench" "$@" ;;
  edit-core) "$release/edit-core-bench" "$@" ;;
  alloy-native) "$release/alloy-native-bench" "$@" ;;
  versus-upstream) versus_upstream "$@" ;;
  all)
    echo "# render"
    render
    echo
    echo "# controller"
    controller
    ;;
esac
