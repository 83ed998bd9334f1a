// Kernels for engine_bench: a barrier per lane, a simd_sum per lane, an empty kernel and a
// barrier-free silu. Many sync points per lane, so the figure is the sync point's cost, not the
// lane's start and finish.
#include <metal_stdlib>
using namespace metal;

constant uint kSyncsPerLane = 256;

kernel void bench_barriers(uint tid [[thread_index_in_threadgroup]]) {
    (void)tid;
    for (uint k = 0; k < kSyncsPerLane; ++k) threadgroup_barrier(mem_flags::mem_threadgroup);
}

kernel void bench_simd_sum(device float* sink [[buffer(0)]],
                           uint lane [[thread_index_in_simdgroup]]) {
    float x = float(lane);
    for (uint k = 0; k < kSyncsPerLane; ++k) x = simd_sum(x) * 0.5f;
    if (x == 12345.0f) sink[0] = x;  // keeps the result alive
}

kernel void bench_empty(uint tid [[thread_index_in_threadgroup]]) { (void)tid; }

kernel void bench_silu(device const float* x [[buffer(0)]],
                       device float* y [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
    const float v = x[i];
    y[i] = v / (1.0f + exp(-v));
}
