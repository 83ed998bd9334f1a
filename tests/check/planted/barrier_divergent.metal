// barrier.divergent: lanes of one threadgroup wait at different barriers; both lines reported.
#include <metal_stdlib>
using namespace metal;

// A barrier in each arm of an if/else on the thread index.
kernel void planted_divergent_if_else(device float* out [[buffer(0)]],
                                      uint tid [[thread_position_in_threadgroup]],
                                      uint gid [[thread_position_in_grid]]) {
  threadgroup float tile[64];
  tile[tid] = float(tid);
  if (tid < 16) {
    threadgroup_barrier(mem_flags::mem_threadgroup);  // PLANT: planted_divergent_if_else
    out[gid] = tile[15 - tid];
  } else {
    threadgroup_barrier(mem_flags::mem_threadgroup);  // PLANT2: planted_divergent_if_else
    out[gid] = tile[tid];
  }
}

// A barrier inside a branch on data: lanes with a positive input wait there, the others at the
// barrier after the branch.
kernel void planted_divergent_data(device const float* in [[buffer(0)]],
                                   device float* out [[buffer(1)]],
                                   uint tid [[thread_position_in_threadgroup]],
                                   uint gid [[thread_position_in_grid]]) {
  threadgroup float tile[64];
  float v = in[gid];
  tile[tid] = v;
  if (v > 0.0f) {
    threadgroup_barrier(mem_flags::mem_threadgroup);  // PLANT: planted_divergent_data
    v += tile[(tid + 1) % 64];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);  // PLANT2: planted_divergent_data
  out[gid] = v;
}
