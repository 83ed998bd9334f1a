#!/usr/bin/env bash
# Every corrected kernel over its sweep with every check under ThreadSanitizer, racecheck's
# second opinion: no report. Builds the whole program under the tsan preset (about 20 minutes on
# 2 cores), which is why CI's scripts/test.sh runs only the engine's and the planted races under it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh tsan --target metalsim
TSAN_OPTIONS="suppressions=$PWD/scripts/tsan.supp" \
  build/tsan/host/cli/metalsim check --checks all --skip-known-bugs --workers "$(nproc)"
