// A correct kernel: every planted test dispatches it right after its fault to show the
// process (and the device) goes on.
#include <metal_stdlib>
using namespace metal;

kernel void planted_ok(device uint* out [[buffer(0)]],
                       uint gid [[thread_position_in_grid]]) {
  out[gid] = gid + 1;
}

// A correct reduction: threadgroup memory with a barrier at every step, a simdgroup sum, reads
// of one device element by every lane and an atomic total across threadgroups. The race check
// must find nothing in it.
kernel void planted_ok_reduce(device const float* in [[buffer(0)]],
                              device atomic_uint* total [[buffer(1)]],
                              device float* partial [[buffer(2)]],
                              uint tid [[thread_position_in_threadgroup]],
                              uint n [[threads_per_threadgroup]],
                              uint gid [[thread_position_in_grid]],
                              uint tg [[threadgroup_position_in_grid]]) {
  threadgroup float sums[64];
  sums[tid] = in[gid] + in[0] * 0.0f;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint s = n / 2; s > 0; s /= 2) {
    if (tid < s) sums[tid] += sums[tid + s];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  const float simd_total = simd_sum(in[gid]);
  if (tid == 0) partial[tg] = sums[0];
  if (tid % 32 == 0) atomic_fetch_add_explicit(total, uint(simd_total), memory_order_relaxed);
}
