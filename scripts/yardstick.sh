#!/usr/bin/env bash
# The yardstick (docs/yardstick.md): third-party Metal kernel files, from checkouts you provide,
# compiled through metalsim and run against references written here. Nothing third-party enters
# this repository.
#
#   scripts/yardstick.sh [--mlx ~/src/mlx] [--ggml ~/src/ggml] [--build DIR] [--jobs N] [--no-run]
#   scripts/yardstick.sh --mlx-backend ~/src/mlx [--build DIR] [--jobs N] [--no-run] [--no-tests]
#                        [--test-runs default,again,all,fibers,loops]
#
#   --mlx DIR    an ml-explore/mlx checkout (its mlx/backend/metal/kernels/)
#   --ggml DIR   a ggml-org/ggml or llama.cpp checkout (its ggml/src/ggml-metal/ or src/ggml-metal/)
#   --build DIR  the build directory (default build/yardstick)
#   --no-run     only the compile table
#   --no-build   use the build directory as it is (already built by an earlier run)
#   --only gemv  only MLX's gemv.metal: every instance run, no compile table
#   --mlx-backend DIR  MLX's own Metal backend (its host code) built against an installed
#                metalsim, a check program and MLX's C++ test suite on MLX's GPU device
#                (--no-tests, --test-runs LIST: scripts/mlx_backend.sh's), docs/mlx_backend.md
#                (default build directory build/mlx-backend)
#
# Sets up (scripts/setup.sh) and builds in a fresh build directory, so it runs on a fresh machine;
# the MLX and ggml files are built with only the instances the drivers run (KERNELS in
# tests/yardstick/CMakeLists.txt): about 5 minutes on 2 cores.
#
# Prints two tables: every kernel file with whether it compiles (metalsim-front, then the kernel
# compiler with -fsyntax-only and metalsim's headers), and the instances the driver runs
# (tests/yardstick/) with their largest error against the reference. Exit status 1 when a file
# other than Apple-framework ones fails to compile or an instance fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mlx="" ggml="" build="$root/build/yardstick" jobs="$(nproc)" run=1 configure=1 only=""
backend=() backend_build="" backend_options=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mlx-backend) backend=("$2"); shift 2 ;;
    --mlx) mlx="$(cd "$2" && pwd)"; shift 2 ;;
    --ggml) ggml="$(cd "$2" && pwd)"; shift 2 ;;
    --build) build="$2"; backend_build="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --no-run) run=0; shift ;;
    --no-build) configure=0; shift ;;
    --only) only="$2"; shift 2 ;;
    --no-tests) backend_options+=(--no-tests); shift ;;
    --test-runs) backend_options+=(--test-runs "$2"); shift 2 ;;
    *) echo "yardstick.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
if [ ${#backend[@]} -gt 0 ]; then
  [ -n "$backend_build" ] && backend+=(--build "$backend_build")
  [ "$run" = 1 ] || backend+=(--no-run)
  exec "$root/scripts/mlx_backend.sh" "${backend[@]}" "${backend_options[@]}" --jobs "$jobs"
fi
if [ -z "$mlx" ] && [ -z "$ggml" ]; then
  echo "yardstick.sh: give --mlx DIR and/or --ggml DIR (checkouts of ml-explore/mlx, ggml-org/ggml)," \
    "or --mlx-backend DIR" >&2
  exit 2
fi

# ------------------------------ build metalsim-front and the driver
if [ "$configure" = 1 ]; then
  "$root/scripts/setup.sh"  # the Debian packages the build needs, as the README's commands do
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMETALSIM_BUILD_BENCH=OFF \
    -DMETALSIM_YARDSTICK_MLX="$mlx" -DMETALSIM_YARDSTICK_GGML="$ggml" >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log" >&2; exit 1; }
  targets=(metalsim-front)
  [ "$run" = 1 ] && { [ -n "$mlx" ] || [ -n "$ggml" ]; } && targets+=(yardstick)
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$build.build.log" 2>&1 ||
    { tail -40 "$build.build.log" >&2; exit 1; }
fi
front="${METALSIM_FRONT:-$(find "$build" -name metalsim-front -type f -perm -u+x | head -1)}"
# The kernel compiler's flags, less the pass plugins (a syntax-only compile runs no pass).
mapfile -t flags < <(grep -v -- '-fpass-plugin' "$build/metalsim_kernel_flags.rsp" | tr -d '"')
cxx="$(grep -m1 'METALSIM_KERNEL_CLANG:' "$build/CMakeCache.txt" | cut -d= -f2)"
[ -n "$cxx" ] || cxx=clang++-19

yardstick="$(find "$build" -name yardstick -type f -perm -u+x | head -1)"
if [ -n "$only" ]; then  # one part's instances, no compile table
  "$yardstick" "$only"
  exit $?
fi

# ------------------------------ does every kernel file compile?
out="$build/yardstick.compile"
mkdir -p "$out"
compile_one() {  # $1 the file, $2 the include root; prints "file|result|first error"
  local f="$1" inc="$2" n
  n="$(echo "$f" | tr / _)"
  if ! "$front" "$f" -o "$out/$n.cpp" -I "$inc" >"$out/$n.front.log" 2>&1; then
    echo "$f|front error|$(head -1 "$out/$n.front.log")"
  elif ! "$cxx" "${flags[@]}" -fsyntax-only -ferror-limit=3 -I "$inc" -I "$(dirname "$f")" "$out/$n.cpp" \
      >"$out/$n.cc.log" 2>&1; then
    echo "$f|compile error|$(grep -m1 'error:' "$out/$n.cc.log")"
  else
    echo "$f|yes|"
  fi
}
export -f compile_one
export front out cxx
export flags_joined="${flags[*]}"
files=()
if [ -n "$mlx" ]; then
  while IFS= read -r f; do files+=("$f|$mlx"); done < <(find "$mlx/mlx/backend/metal/kernels" -name '*.metal' | sort)
fi
if [ -n "$ggml" ]; then
  # ggml-metal.metal includes "ggml-common.h" from the folder above its own.
  while IFS= read -r f; do files+=("$f|$(dirname "$(dirname "$f")")"); done < <(find "$ggml" -path '*ggml-metal/ggml-metal.metal' | sort)
fi
results="$(printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c \
  'IFS="|" read -r f inc <<<"{}"; flags=($flags_joined); compile_one "$f" "$inc"' | sort)"
echo "## Kernel files"
echo
echo "| file | compiles | first error |"
echo "| --- | --- | --- |"
status=0
while IFS='|' read -r f res err; do
  short="${f#"$mlx"/}"; [ -n "$ggml" ] && short="${short#"$ggml"/}"
  echo "| $short | $res | ${err//|/\\|} |"
  if [ "$res" != yes ] && [[ "$err" != *"Apple's MetalPerformancePrimitives"* ]]; then status=1; fi
done <<<"$results"
echo

# ------------------------------ the instances against their references
if [ "$run" = 1 ]; then
  echo "## Instances"
  echo
  "$yardstick" || status=1
fi
exit $status
