#!/usr/bin/env bash
# Runs every check CI runs: formatting, lints, and every test (unit, golden, promtool,
# end-to-end on testkube and on the real control plane). Installs or builds what the tests
# need first.
set -euo pipefail
cd "$(dirname "$0")/.."
# A test run builds each crate once: incremental compilation data would only add 4 GB to
# the target directory (a third of it) and time to every build.
export CARGO_INCREMENTAL=0
# Builds go to one target directory under ~/.cache that every checkout shares, so a fresh
# clone (as CI makes) reuses the dependencies built before and compiles only the workspace's
# own crates (whose source is new to cargo). A workspace crate's artifacts are named after its
# checkout's path, so each new path adds a set of them: past TARGET_CACHE_LIMIT_GB the
# directory starts afresh.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/agent-operator/cargo-target}"
TARGET_CACHE_LIMIT_GB=${TARGET_CACHE_LIMIT_GB:-40}
mkdir -p "$CARGO_TARGET_DIR"
if [ "$(du -s --block-size=1G "$CARGO_TARGET_DIR" | cut -f1)" -gt "$TARGET_CACHE_LIMIT_GB" ]; then
  echo "== $CARGO_TARGET_DIR is over ${TARGET_CACHE_LIMIT_GB} GB: starting it afresh"
  rm -rf "$CARGO_TARGET_DIR"
  mkdir -p "$CARGO_TARGET_DIR"
fi

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
# Alloy, for crates/render/tests/alloy_convert.rs (every config rendered for runtime alloy
# through `alloy convert`) and crates/cli/tests/prometheus_operator_crds.rs (what the operator
# writes on the real control plane, converted and native): a long build on a cold cache
# (v1.19.2: about 15 minutes and 6 GB of memory on an idle 2-core machine, 55 minutes measured
# on a busy one), cached afterwards.
echo "== alloy"
start=$SECONDS
GO_BUILD_QUIET=1 scripts/build-alloy > /dev/null
echo "alloy ready in $((SECONDS - start))s"
# The upstream Grafana Agent Operator, for the live differential test
# (crates/cli/tests/upstream.rs), and the agent itself, which crates/render/tests/agent_loads.rs
# starts on every rendered config (and crates/cli/tests/prometheus_operator_crds.rs on what the
# running operator writes for monitors made for prometheus-operator v0.94's CRDs, which that test
# vendors, so nothing is fetched for them); with the agent's table of integration settings
# (scripts/integration-settings, checked by the same test): built once from the module, cached.
echo "== grafana-agent and the upstream grafana-agent-operator (v0.44.8)"
start=$SECONDS
GO_BUILD_QUIET=1 scripts/build-grafana-agent
GO_BUILD_QUIET=1 scripts/integration-settings --print > /dev/null
echo "grafana-agent binaries ready in $((SECONDS - start))s"
# A YAML 1.1 reader (PyYAML), as the agent's yaml.v2 reads: crates/render/tests/yaml_1_1_readback.rs.
if ! python3 -c 'import yaml' 2> /dev/null; then
  echo "== PyYAML (for the YAML 1.1 read-back test)"
  # Into the python3 on PATH, the one the test runs (Debian's python3-yaml would go to
  # /usr/bin/python3, which may not be that one).
  python3 -m pip install -q pyyaml
fi
# The real node's tests (crates/testenv/tests/cluster.rs, crates/cli/tests/real_node.rs, the
# node half of crates/cli/tests/docs.rs) run kubelet, kube-scheduler and kube-proxy (same module
# as the control plane), containerd, runc and the CNI plugins (Debian), images of the agent and
# the config reloader (for the upstream operator's pods; built from their pinned modules), of Debian's node exporter and busybox,
# a Prometheus (Debian's, installed above with promtool) and Loki (its pinned module) beside the
# node. All cached: a warm run builds nothing here. The operator's own image is made by each test
# from the binary cargo built for it (scripts/build-images --operator, seconds).
echo "== real node (kubelet, kube-scheduler, kube-proxy, containerd, images, Loki)"
start=$SECONDS
scripts/cluster --prepare
GO_BUILD_QUIET=1 scripts/build-images > /dev/null
GO_BUILD_QUIET=1 scripts/build-loki > /dev/null
echo "real node binaries and images ready in $((SECONDS - start))s"
echo "== cargo test"
# Every test binary is built first; then the tests run in three lanes at once, each running its
# binaries one after the other as `cargo test --workspace` does (whose runner stops at the first
# failing binary; so does each lane): the real node's scenarios, the binary's end-to-end tests
# (crates/cli/tests: operators on the real control plane and testkube, the docs), and everything
# else (unit, golden, promtool, agent and Alloy loads, testenv, testkube, doc tests, the demo).
# The lanes are balanced by their measured times (about 6, 11 and 10 min on 2 cores, each
# slowed by the others): most of the first two is waiting on pods, API servers, leases and
# scrapes. real_node's scenarios each run a cluster of their own, one at a time. Cargo holds no lock while tests run, so several lanes can. Every command
# selects with --workspace, so that all build with the one feature set of the whole workspace
# (`-p` or `--exclude` would resolve others and build the dependency graph again).
cargo test --workspace --locked --no-run
# The node lane's test targets, and those of the end-to-end package that run in the rest lane.
node_tests=(real_node cluster)
rest_also=(demo)
# The package whose test binaries make the end-to-end lane (crates/cli).
e2e_package=agent-operator
# Each lane's commands are joined by && since errexit does not apply inside `lane || ...`.
# The scenarios that time scrapes (config delivery with its rolls, clustering) run last: their
# gaps between samples are the scrape loops' timing, which the other lanes' first quarter hour
# (both cores busy) stretched past their bounds in CI (samples paused 18 s at a 5 s interval;
# a cluster settled in 215 s instead of 14 s); by the time the other scenarios are done the
# other lanes are too.
timed_scenarios=(
  config_edits_reach_every_agent_in_seconds_on_both_runtimes
  an_alloy_cluster_scrapes_every_target_once_and_resizes_without_gaps
)
node_lane() {
  local skip=()
  for scenario in "${timed_scenarios[@]}"; do skip+=(--skip "$scenario"); done
  cargo test --workspace --locked --test=real_node -- --test-threads=4 "${skip[@]}" &&
    cargo test --workspace --locked --test=cluster &&
    cargo test --workspace --locked --test=real_node -- --exact "${timed_scenarios[@]}"
}
# The workspace's test targets (as --test=NAME) but the node lane's: those of the end-to-end
# package (`e2e`) or of every other package (`rest`), the rest lane taking `rest_also` from the
# first. A new test file runs without anyone listing it here.
test_targets() {
  cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
which, e2e, skip, rest_also = sys.argv[1], sys.argv[2], set(sys.argv[3].split()), set(sys.argv[4].split())
names = {t["name"] for p in json.load(sys.stdin)["packages"] for t in p["targets"]
         if "test" in t["kind"] and ((p["name"] == e2e and t["name"] not in rest_also) == (which == "e2e"))}
for name in sorted(names - skip):
    print("--test=" + name)
' "$1" "$e2e_package" "${node_tests[*]}" "${rest_also[*]}"
}
e2e_lane() {
  local tests
  tests=$(test_targets e2e) &&
    # shellcheck disable=SC2086 # one --test=NAME a word
    cargo test --workspace --locked $tests
}
rest_lane() {
  local tests
  tests=$(test_targets rest) &&
    # shellcheck disable=SC2086 # one --test=NAME a word
    cargo test --workspace --locked --lib --bins $tests &&
    cargo test --workspace --locked --doc
}
node_log=$CARGO_TARGET_DIR/test-node-lane.log
e2e_log=$CARGO_TARGET_DIR/test-e2e-lane.log
start=$SECONDS
(node_lane) > "$node_log" 2>&1 &
node_pid=$!
(e2e_lane) > "$e2e_log" 2>&1 &
e2e_pid=$!
rest_status=0
(rest_lane) || rest_status=$?
echo "== cargo test: unit, golden, the other crates' tests and the demo ended (exit $rest_status) after" \
  "$((SECONDS - start))s; waiting for the end-to-end lane ($e2e_log)"
e2e_status=0
wait "$e2e_pid" || e2e_status=$?
echo "== cargo test: the end-to-end tests (exit $e2e_status, $((SECONDS - start))s since the lanes began)"
cat "$e2e_log"
node_status=0
wait "$node_pid" || node_status=$?
echo "== cargo test: the real node's scenarios (exit $node_status, $((SECONDS - start))s since the lanes began)"
cat "$node_log"
if [ "$rest_status" -ne 0 ] || [ "$e2e_status" -ne 0 ] || [ "$node_status" -ne 0 ]; then
  echo "== cargo test failed: exit $rest_status (unit, golden, other crates, demo)," \
    "$e2e_status (end-to-end), $node_status (real node)" >&2
  exit 1
fi
