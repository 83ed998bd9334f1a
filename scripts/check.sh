#!/usr/bin/env bash
# The main job: set up, build, and run `metalsim check` (every kernel over its boundary sweep
# against its Eigen reference, with the checks on). Arguments go to `metalsim check`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release --target metalsim
exec build/release/host/cli/metalsim check "$@"
