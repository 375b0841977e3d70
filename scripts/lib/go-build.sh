# Shared by the scripts/build-* scripts: builds Go binaries from a pinned wrapper module under
# tools/<name>/ into a cache entry keyed by go.mod, go.sum, the Go version and what is built,
# so a pin change builds afresh and anything else reuses the cache.
#
#   go_build_cached NAME MODULE_DIR KEY_EXTRA BINARY... -- GO_BUILD_ARGS...
#
# builds (unless the entry has every BINARY already) with `go build GO_BUILD_ARGS -o <scratch>/`
# and prints the entry's directory. One build per entry at a time: a second caller waits on a
# lock (and says so) instead of starting the same build again. An interrupted build never leaves
# a half-filled entry: it builds into a scratch directory renamed into place.
# Environment: AGENT_OPERATOR_CACHE (default ~/.cache/agent-operator), <NAME>_BUILD_NICE
# (default 10), GO_BUILD_QUIET=1 to hide go's progress.

go_cache_root() {
  echo "${AGENT_OPERATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-operator}"
}

# The module proxy is the only source: no fallback to version-control hosts ("direct"), no
# checksum-database lookup: the wrapper modules carry upstream's go.sum, and -mod=readonly
# refuses to build with a go.sum that lacks anything.
go_build_env() {
  if ! command -v go > /dev/null; then
    echo "$1: 'go' is not on PATH; it is needed to build $1" >&2
    return 1
  fi
  local proxies
  proxies=$(go env GOPROXY | tr ',|' '\n\n' | grep -v -x -e direct -e off -e '' | paste -sd, - || true)
  if [[ -z "$proxies" ]]; then
    echo "$1: GOPROXY ($(go env GOPROXY)) names no module proxy" >&2
    return 1
  fi
  export GOPROXY="$proxies" GOFLAGS=-mod=readonly GOTOOLCHAIN=local
}

go_build_cached() {
  local name=$1 module_dir=$2 key_extra=$3
  shift 3
  local binaries=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do binaries+=("$1"); shift; done
  [[ "${1:-}" == "--" ]] && shift
  go_build_env "$name" || return 1
  local cache_root key bin_dir
  cache_root="$(go_cache_root)/$name"
  key=$( { cat "$module_dir/go.mod" "$module_dir/go.sum"; echo "$key_extra" "${binaries[*]}" "$*";
           go env GOVERSION GOOS GOARCH; } | sha256sum | cut -c1-16)
  bin_dir="$cache_root/$key"
  mkdir -p "$cache_root"
  _complete() { local b; for b in "${binaries[@]}"; do [[ -x "$bin_dir/$b" ]] || return 1; done; }
  if ! _complete; then
    exec 9> "$cache_root/.lock-$key"
    if ! flock -n 9; then
      echo "$name: another build of $bin_dir is running; waiting for it" >&2
      flock 9
    fi
    if ! _complete; then
      local scratch nice_var
      scratch=$(mktemp -d "$cache_root/.build-$key.XXXXXX")
      # shellcheck disable=SC2064
      trap "rm -rf '$scratch'" EXIT
      nice_var="$(tr 'a-z-' 'A-Z_' <<< "$name")_BUILD_NICE"
      echo "$name: building ${binaries[*]} into $bin_dir (minutes on a cold Go cache)" >&2
      local verbose=(-v)
      [[ "${GO_BUILD_QUIET:-}" == 1 ]] && verbose=()
      (cd "$module_dir" && nice -n "${!nice_var:-10}" go build "${verbose[@]}" -trimpath -o "$scratch/" "$@") \
        2> >(if [[ ${#verbose[@]} -gt 0 ]]; then awk -v n="$name" '{c++; if (c % 200 == 0) printf "%s: %d packages built\n", n, c > "/dev/stderr"; else if ($0 !~ /^[a-zA-Z0-9_.\/-]+$/) print > "/dev/stderr"}'; else cat >&2; fi)
      # A caller whose packages build under other names renames them here.
      if declare -F go_build_post > /dev/null; then (cd "$scratch" && go_build_post); fi
      local b
      for b in "${binaries[@]}"; do
        [[ -x "$scratch/$b" ]] || { echo "$name: the build made no $b" >&2; return 1; }
      done
      chmod 755 "$scratch"
      rm -rf "$bin_dir"
      mv "$scratch" "$bin_dir"
      trap - EXIT
    fi
    exec 9>&-
  fi
  echo "$bin_dir"
}
