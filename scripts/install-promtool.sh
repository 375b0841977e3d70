#!/usr/bin/env bash
# Installs promtool (Debian's `prometheus` package) when it is missing: the metrics tests
# check every generated config with it.
set -euo pipefail
if command -v promtool >/dev/null 2>&1; then
  exit 0
fi
echo "== installing promtool (Debian package prometheus)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
command -v promtool >/dev/null
