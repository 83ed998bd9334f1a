// barrier.exited: a threadgroup_barrier reached after some lanes of the threadgroup returned.
#include <metal_stdlib>
using namespace metal;

// The bounds guard returns before the barrier: threads 48..63 are gone when 0..47 wait.
kernel void planted_barrier_after_return(device const float* in [[buffer(0)]],
                                         device float* out [[buffer(1)]],
                                         constant uint& n [[buffer(2)]],
                                         uint tid [[thread_position_in_threadgroup]],
                                         uint gid [[thread_position_in_grid]]) {
  threadgroup float tile[64];
  if (gid >= n) return;
  tile[tid] = in[gid];
  threadgroup_barrier(mem_flags::mem_threadgroup);  // PLANT: planted_barrier_after_return
  out[gid] = tile[tid] + tile[tid ^ 1];
}

// A return inside a loop whose body ends with a barrier: odd threads leave in the third pass,
// even threads reach that pass's barrier.
kernel void planted_barrier_return_in_loop(device float* out [[buffer(0)]],
                                           uint tid [[thread_position_in_threadgroup]],
                                           uint gid [[thread_position_in_grid]]) {
  threadgroup float acc[64];
  acc[tid] = 0.0f;
  for (uint i = 0; i < 4; ++i) {
    if (i == 2 && (tid & 1) == 1) return;
    acc[tid] += float(i);
    threadgroup_barrier(mem_flags::mem_threadgroup);  // PLANT: planted_barrier_return_in_loop
  }
  out[gid] = acc[tid];
}
