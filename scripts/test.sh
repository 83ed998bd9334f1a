#!/usr/bin/env bash
# Set up, build and pass the tests: the release build (every suite and a short fuzz campaign with
# every check), then the engine and the checks again under AddressSanitizer and ThreadSanitizer,
# as CI runs them. Each stage prints its time: CI's budget is 25 minutes on 2 cores
# (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs="$(nproc)"
start=$SECONDS
stage() { echo "== test.sh: $1 ($((SECONDS - start)) s so far)"; }

# Every C++ file the change touches is formatted (.clang-format).
stage "format"
scripts/check_format.sh

stage "release build"
scripts/build.sh release
stage "release tests"
ctest --preset release -j "$jobs"

# Every spec fuzzed with every check for 45 seconds (issue 14's campaign, short): corrected kernels
# pass, the documents' kernels reproduce their known bugs.
stage "fuzz campaign, every check"
build/release/host/cli/metalsim fuzz --all --time 45 --seed 20261125 --checks all
# The same for case files compiled at run time in Metal's default fast math, of ggml's shape:
# every mode, schedule and worker count must give the same bits (issue 28 item 6).
stage "fuzz campaign, fast-math case files"
build/release/host/cli/metalsim fuzz tests/cli/case_files/ggml_rms_norm.json \
  tests/cli/case_files/ggml_mul_mv.json tests/cli/case_files/ggml_q4_0.json --time 20 \
  --seed 20261125 --checks all

# AddressSanitizer: the engine, fibers, host runtime and planted bugs again, every fiber switch
# annotated; LeakSanitizer checks the host runtime's ownership.
# The sanitizer builds compile their kernels with the release build's pass plugins (host tools,
# the same in every preset) instead of building them twice more.
plugins=(-DMETALSIM_PASS_PLUGINS_FROM="$PWD/build/release")

stage "asan build"
cmake --preset asan "${plugins[@]}" >/dev/null
scripts/build.sh asan --target engine_test fiber_test host_test check_test
stage "asan tests"
build/asan/tests/fiber/fiber_test
build/asan/tests/engine/engine_test
build/asan/tests/host/host_test
build/asan/tests/check/check_test

# ThreadSanitizer, racecheck's second opinion: race.threadgroup and race.device on the planted
# races with both lines (the race.schedule rows, TSan-free, ran in the release tests), the corrected planted kernels without a report, TSan's own text hidden
# unless asked, a fault's exit status 1 (tsan_second_opinion_test.cpp). (A memory fault cannot be
# recovered under TSan, which does not follow a jump out of a fiber: memcheck belongs to the
# release and asan presets.) The engine's race and barrier suites and the sweep of every kernel
# under TSan are scripts/test_tsan_sweep.sh: CI's 25 minutes do not hold them beside the rest.
stage "tsan build"
cmake --preset tsan "${plugins[@]}" >/dev/null
scripts/build.sh tsan --target check_test
stage "tsan tests"
build/tsan/tests/check/check_test --gtest_filter='*race_threadgroup*:*race_device*:Tsan*'
stage "done"
