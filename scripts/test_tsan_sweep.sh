#!/usr/bin/env bash
# ThreadSanitizer, racecheck's second opinion, beyond what CI's scripts/test.sh runs under it (the
# planted races): the engine's race, barrier and simd suites, and every corrected kernel over its
# sweep with every check, without a report. Builds the whole program under the tsan preset (about
# 20 minutes on 2 cores), which CI's 25 minutes do not hold beside the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh tsan --target metalsim engine_test
build/tsan/tests/engine/engine_test --gtest_filter='Racecheck*:Barrier*:Schedule*:Sizes*:Divergence*'
TSAN_OPTIONS="suppressions=$PWD/scripts/tsan.supp" \
  build/tsan/host/cli/metalsim check --checks all --skip-known-bugs --workers "$(nproc)"
