#!/usr/bin/env bash
# How metalsim scales from 1 to N cores: the engine benchmarks (barrier-free kernel against the
# same loop in C++, per worker count) and the kernel benchmarks (emulated kernel against its
# Eigen reference) at 1, 2, 4, 8, 16 threads. Run on a quiet many-core machine:
#   bench/scaling.sh build/release/bench [max_threads]
# docs/performance.md holds the figures it printed.
set -euo pipefail
dir="${1:-build/release/bench}"
max="${2:-$(nproc)}"
reps=${REPS:-3}
"$dir/engine_bench" --benchmark_filter='BM_ThreadgroupBarrier|BM_FiberSwitchFloor|BM_SimdSum|BM_EmptyThreadgroup' \
  --benchmark_repetitions=$reps --benchmark_report_aggregates_only=true
for n in 1 2 4 8 16; do
  [ "$n" -le "$max" ] || break
  OMP_NUM_THREADS=$n "$dir/engine_bench" --benchmark_filter="BM_BarrierFreeVsNative/$n/" \
    --benchmark_repetitions=$reps --benchmark_report_aggregates_only=true
done
for n in 1 2 4 8 16; do
  [ "$n" -le "$max" ] || break
  echo "== kernels at $n threads"
  OMP_NUM_THREADS=$n "$dir/kernels_bench" --benchmark_repetitions=$reps \
    --benchmark_report_aggregates_only=true 2>&1 | grep -E 'median|Benchmark'
done
