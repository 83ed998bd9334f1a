#!/usr/bin/env bash
# Set up, build and pass the tests: the release build (every suite), then the engine and the
# checks again under AddressSanitizer and ThreadSanitizer, as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs="$(nproc)"

scripts/build.sh release
ctest --preset release -j "$jobs"

# AddressSanitizer: the engine's fibers, stacks and sync points, every switch annotated.
# (Faults.* deliberately touch guard pages, which ASan turns into a fatal report of its own.)
scripts/build.sh asan --target engine_test fiber_test
build/asan/tests/fiber/fiber_test
build/asan/tests/engine/engine_test --gtest_filter='-Faults.*'
