#!/usr/bin/env bash
# Set up, build and pass the tests: the release build (every suite), then the engine and the
# checks again under AddressSanitizer and ThreadSanitizer, as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs="$(nproc)"

scripts/build.sh release
ctest --preset release -j "$jobs"

# AddressSanitizer: the engine, fibers and host runtime again, every fiber switch annotated.
scripts/build.sh asan --target engine_test fiber_test host_test
build/asan/tests/fiber/fiber_test
build/asan/tests/engine/engine_test
build/asan/tests/host/host_test
