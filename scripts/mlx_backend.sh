#!/usr/bin/env bash
# MLX's own Metal backend built on Linux against an installed metalsim (issue 26 item 1):
#   scripts/mlx_backend.sh MLX_CHECKOUT [--build DIR] [--prefix DIR] [--jobs N] [--opt FLAGS]
#                          [--tests] [--no-run]
# (scripts/yardstick.sh --mlx-backend MLX_CHECKOUT runs this.)
#
#   MLX_CHECKOUT  an ml-explore/mlx checkout, at the pinned commit (PINNED below; another commit
#                 is tried, with a warning). It is never modified: its files at HEAD (a git
#                 checkout) or as they are are copied to DIR/mlx-src, where
#                 tests/yardstick/mlx_backend.patch is applied.
#   --build DIR   where everything goes (default build/mlx-backend)
#   --prefix DIR  an installed metalsim to build against; by default this tree is built in
#                 DIR/metalsim-build (the library, front and plugins) and installed to DIR/metalsim.
#   --jobs N      parallel jobs (default: nproc)
#   --opt FLAGS   MLX's release flags (default "-O1 -DNDEBUG": MLX's own -O3 makes its CPU
#                 backend take over an hour on 2 cores; the Metal backend's work is metalsim's)
#   --no-tests    do not build or run MLX's C++ test suite (item 3)
#   --test-runs L the suite's runs, comma-separated, each a directory of DIR/mlx-tests with its
#                 results and summary (scripts/mlx_tests.py): default (the default checks, lane
#                 loops where a kernel has them), again (the same, second: the kernel cache
#                 full), all (METALSIM_CHECKS=all), fibers and loops (METALSIM_MODE, the default
#                 checks). Default: default,again,all,fibers,loops. Kernels are cached in
#                 DIR/cache, empty in a new DIR. The table of every run goes to
#                 DIR/mlx-tests/table.md and standard output.
#   --no-run      build only: run neither the check program nor the suite
#
# MLX is configured with MLX_BUILD_METAL=ON and MLX_METAL_JIT=ON, offline: metal-cpp is
# metalsim's include/metalsim/metal_cpp (FETCHCONTENT_SOURCE_DIR_METAL_CPP), nlohmann-json,
# fmt, BLAS and LAPACK(E) are Debian's, the Metal, Foundation and QuartzCore libraries are the
# target metalsim::metal_cpp, and `xcrun metal` is metalsim-metal (the xcrun of
# <prefix>/libexec/metalsim/xcrun first on PATH). MLX is compiled by clang++-19 (its
# __builtin_available checks are clang's); metalsim's engine, built by g++, uses GCC's OpenMP
# (libgomp), which clang is told to link (OpenMP_CXX_* below). Then it builds libmlx and
# tests/yardstick/mlx_backend_check.cpp, which adds arrays on MLX's GPU device, and runs it.
# docs/mlx_backend.md: what builds, what runs, timings; docs/yardstick.md: the patch.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
PINNED=846d176227a0ac13d2667e58d2bb68b322109ab0

mlx="" build="$root/build/mlx-backend" prefix="" jobs="$(nproc)" run=1 opt="-O1 -DNDEBUG" tests=1
test_runs="default,again,all,fibers,loops"
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --prefix) prefix="$(cd "$2" && pwd)"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --opt) opt="$2"; shift 2 ;;
    --no-run) run=0; shift ;;
    --tests) tests=1; shift ;;  # the default; kept for older command lines
    --no-tests) tests=0; shift ;;
    --test-runs) test_runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) echo "mlx_backend.sh: unknown option $1" >&2; exit 2 ;;
    *) mlx="$(cd "$1" && pwd)"; shift ;;
  esac
done
[ -n "$mlx" ] || { echo "mlx_backend.sh: give an ml-explore/mlx checkout" >&2; exit 2; }
mkdir -p "$build"
build="$(cd "$build" && pwd)"

"$root/scripts/setup.sh" --mlx-backend
log() { echo "mlx_backend.sh: $*" >&2; }
timed() {  # timed NAME COMMAND...: runs it, logs to $build/NAME.log, prints the wall time
  local start=$SECONDS
  if ! "${@:2}" >"$build/$1.log" 2>&1; then
    log "$1 failed after $((SECONDS - start)) s; the end of $build/$1.log:"
    tail -30 "$build/$1.log" >&2
    exit 1
  fi
  log "$1: $((SECONDS - start)) s"
}

# ------------------------------ metalsim, installed
if [ -z "$prefix" ]; then
  # A library-only install from a build of its own (docs/porting.md, "Way 1").
  prefix="$build/metalsim"
  timed metalsim-configure cmake -S "$root" -B "$build/metalsim-build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETALSIM_INSTALL_PROGRAM=OFF -DMETALSIM_BUILD_TESTS=OFF \
    -DMETALSIM_BUILD_BENCH=OFF -DMETALSIM_BUILD_PYTHON=OFF -DCMAKE_INSTALL_PREFIX="$prefix"
  timed metalsim-build cmake --build "$build/metalsim-build" -j "$jobs" --target metalsim_simt \
    metalsim_host metalsim_front_lib metalsim-front MetalsimLanes MetalsimChecks
  timed metalsim-install cmake --install "$build/metalsim-build" --prefix "$prefix"
fi
[ -f "$prefix/lib/cmake/metalsim/metalsimConfig.cmake" ] ||
  { log "no installed metalsim at $prefix"; exit 1; }
[ -x "$prefix/libexec/metalsim/xcrun/xcrun" ] ||
  { log "$prefix is a metalsim installed without metalsim-metal (older than issue 26)"; exit 1; }

# ------------------------------ MLX's sources, patched
src="$build/mlx-src"
commit=""
if git -C "$mlx" rev-parse HEAD >/dev/null 2>&1; then commit="$(git -C "$mlx" rev-parse HEAD)"; fi
[ "$commit" = "$PINNED" ] || log "warning: $mlx is at '${commit:-not a git checkout}', not the pinned $PINNED"
rm -rf "$src" && mkdir -p "$src"
if [ -n "$commit" ]; then git -C "$mlx" archive HEAD | tar -x -C "$src"; else cp -a "$mlx/." "$src/"; fi
patch -d "$src" -p1 --quiet <"$root/tests/yardstick/mlx_backend.patch"

# nlohmann-json where MLX's FetchContent would unpack it (single_include/nlohmann/json.hpp).
mkdir -p "$build/deps/json/single_include"
ln -sfn /usr/include/nlohmann "$build/deps/json/single_include/nlohmann"

# Debian's doctest (2.4.9; MLX fetches 2.4.12) where MLX's tests/CMakeLists.txt would fetch it: a
# `doctest` target (the header is /usr/include/doctest/doctest.h) and scripts/cmake/doctest.cmake.
mkdir -p "$build/deps/doctest/scripts"
ln -sfn /usr/lib/cmake/doctest "$build/deps/doctest/scripts/cmake"
echo "add_library(doctest INTERFACE)  # Debian's doctest-dev, written by scripts/mlx_backend.sh" \
  >"$build/deps/doctest/CMakeLists.txt"

# Included by MLX's project() (CMAKE_PROJECT_mlx_INCLUDE): the installed metalsim, and the check
# program built in MLX's build with MLX's flags.
cat >"$build/metalsim_for_mlx.cmake" <<EOF
find_package(metalsim REQUIRED CONFIG PATHS "$prefix" NO_DEFAULT_PATH)
add_executable(mlx_backend_check "$root/tests/yardstick/mlx_backend_check.cpp")
target_link_libraries(mlx_backend_check PRIVATE mlx)
EOF

# ------------------------------ configure and build MLX
export PATH="$prefix/libexec/metalsim/xcrun:$PATH"
generator=(-G "Unix Makefiles")
command -v ninja >/dev/null && generator=(-G Ninja)
timed mlx-configure cmake -S "$src" -B "$build/mlx" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="$opt" -DCMAKE_C_FLAGS_RELEASE="$opt" \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DMLX_BUILD_METAL=ON -DMLX_METAL_JIT=ON -DMLX_METAL_METALSIM=ON \
  -DMLX_BUILD_TESTS=ON -DMLX_BUILD_EXAMPLES=OFF -DMLX_BUILD_GGUF=OFF -DUSE_SYSTEM_FMT=ON \
  -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
  -DFETCHCONTENT_SOURCE_DIR_METAL_CPP="$prefix/include/metalsim/metal_cpp" \
  -DFETCHCONTENT_SOURCE_DIR_JSON="$build/deps/json" \
  -DFETCHCONTENT_SOURCE_DIR_DOCTEST="$build/deps/doctest" \
  -DMETAL_LIB=metalsim::metal_cpp -DFOUNDATION_LIB=metalsim::metal_cpp \
  -DQUARTZ_LIB=metalsim::metal_cpp \
  -DCMAKE_PROJECT_mlx_INCLUDE="$build/metalsim_for_mlx.cmake" \
  -DOpenMP_CXX_FLAGS=-fopenmp=libgomp -DOpenMP_CXX_LIB_NAMES=gomp \
  -DOpenMP_gomp_LIBRARY="$(g++ -print-file-name=libgomp.so)"
timed mlx-build cmake --build "$build/mlx" -j "$jobs" --target mlx
timed mlx-check-build cmake --build "$build/mlx" -j "$jobs" --target mlx_backend_check
[ "$tests" = 0 ] || timed mlx-tests-build cmake --build "$build/mlx" -j "$jobs" --target tests

[ "$run" = 1 ] || exit 0
export XDG_CACHE_HOME="$build/cache"  # metalsim's kernel cache: empty in a new build directory
start=$SECONDS
"$build/mlx/mlx_backend_check"
log "mlx_backend_check: $((SECONDS - start)) s"

# ------------------------------ MLX's C++ test suite on MLX's GPU device (item 3)
[ "$tests" = 1 ] || exit 0
results="$build/mlx-tests"
dirs=()
IFS=',' read -ra runs <<<"$test_runs"
for name in "${runs[@]}"; do
  env=()
  case "$name" in
    default | again) ;;
    all) env=(METALSIM_CHECKS=all) ;;
    fibers | loops) env=(METALSIM_MODE="$name") ;;
    *) log "unknown test run '$name' (default, again, all, fibers, loops)"; exit 2 ;;
  esac
  rm -rf "${results:?}/$name"
  start=$SECONDS
  env "${env[@]}" python3 "$root/scripts/mlx_tests.py" run "$build/mlx/tests/tests" \
    "$results/$name" >"$results.$name.log" 2>&1 ||
    { log "the suite's run '$name' failed; the end of $results.$name.log:"; tail -20 "$results.$name.log" >&2; exit 1; }
  log "MLX's suite, run '$name': $((SECONDS - start)) s"
  dirs+=("$results/$name")
done
python3 "$root/scripts/mlx_tests.py" table "${dirs[@]}" | tee "$results/table.md"
