#!/usr/bin/env bash
# How metalsim scales from 1 to N cores: kernels_bench (each case in lane loops, on fibers and as
# its fast native baseline, the counters medians of ITERATIONS timed runs after an untimed
# warm-up) at each thread count given. Run on a quiet many-core machine:
#   bench/scaling.sh build/release/bench 16 8 4 2 1
# Environment: FILTER (a --benchmark_filter regex; default every bench case), ITERATIONS (default
# 3), JSON_DIR (a folder: each thread count's JSON goes there as kernels_<n>.json; not OUT, which
# the device machine's runner sets for every command), ENGINE=1 (also the
# engine benchmarks: barrier, simd_sum, empty dispatch and threadgroup, the barrier-free kernel
# against native per worker count). docs/performance.md holds the figures it printed.
set -euo pipefail
dir="${1:-build/release/bench}"
shift || true
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2 4 8 16)
filter="${FILTER:-.}"
export METALSIM_BENCH_NO_REFERENCE=1 METALSIM_BENCH_ITERATIONS="${ITERATIONS:-3}"
if [ "${ENGINE:-0}" = 1 ]; then
  "$dir/engine_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_filter='BM_ThreadgroupBarrier|BM_SimdSum|BM_EmptyThreadgroup|BM_EmptyDispatch'
  for n in "${threads[@]}"; do
    OMP_NUM_THREADS=$n "$dir/engine_bench" --benchmark_filter="BM_BarrierFreeVsNative/$n/" \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
  done
fi
for n in "${threads[@]}"; do
  echo "== kernels at $n threads"
  json=()
  [ -n "${JSON_DIR:-}" ] && json=(--benchmark_out="$JSON_DIR/kernels_$n.json" --benchmark_out_format=json)
  OMP_NUM_THREADS=$n "$dir/kernels_bench" --benchmark_filter="$filter" "${json[@]}" 2>&1 |
    grep -vE '^\*\*\*|^-+$'
done
