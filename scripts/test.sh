#!/usr/bin/env bash
# Set up, build and pass the tests: the release build (every suite), then the engine and the
# checks again under AddressSanitizer and ThreadSanitizer, as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs="$(nproc)"

# Every C++ file the change touches is formatted (.clang-format).
scripts/check_format.sh

scripts/build.sh release
ctest --preset release -j "$jobs"

# AddressSanitizer: the engine, fibers, host runtime and planted bugs again, every fiber switch
# annotated; LeakSanitizer checks the host runtime's ownership.
scripts/build.sh asan --target engine_test fiber_test host_test check_test
build/asan/tests/fiber/fiber_test
build/asan/tests/engine/engine_test
build/asan/tests/host/host_test
build/asan/tests/check/check_test

# ThreadSanitizer: racecheck (race.threadgroup, race.device) on the planted races and the
# engine's own race tests, plus barrier and simd suites as the clean side of the check. (A memory
# fault cannot be recovered under TSan, which does not follow a jump out of a fiber: memcheck
# belongs to the release and asan presets.)
scripts/build.sh tsan --target engine_test check_test metalsim
build/tsan/tests/engine/engine_test --gtest_filter='Racecheck*:Barrier*:Schedule*:Sizes*:Divergence*'
build/tsan/tests/check/check_test --gtest_filter='*race*'
# Every corrected kernel over its sweep with every check, racecheck included: no report.
TSAN_OPTIONS="suppressions=$PWD/scripts/tsan.supp" \
  build/tsan/host/cli/metalsim check --checks all --skip-known-bugs --workers 2
