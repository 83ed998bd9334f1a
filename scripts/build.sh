#!/usr/bin/env bash
# Configures and builds one preset (default: release). Extra arguments go to cmake --build,
# e.g. `scripts/build.sh release --target metalsim`.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
jobs="$(nproc)"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs" "$@"
