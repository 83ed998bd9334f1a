// uninit.threadgroup: threadgroup memory read before any lane wrote it.
#include <metal_stdlib>
using namespace metal;

// Only threads 0..15 fill the tile; every thread reads its own element.
kernel void planted_uninit_tg_partial_fill(device const float* in [[buffer(0)]],
                                           device float* out [[buffer(1)]],
                                           uint tid [[thread_position_in_threadgroup]],
                                           uint gid [[thread_position_in_grid]]) {
  threadgroup float tile[64];
  if (tid < 16) tile[tid] = in[gid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = tile[tid];  // PLANT: planted_uninit_tg_partial_fill
}

// Accumulating into a [[threadgroup(0)]] region that was never cleared.
kernel void planted_uninit_tg_region_accumulate(device const float* in [[buffer(0)]],
                                                device float* out [[buffer(1)]],
                                                threadgroup float* acc [[threadgroup(0)]],
                                                uint tid [[thread_position_in_threadgroup]],
                                                uint gid [[thread_position_in_grid]]) {
  acc[tid] += in[gid];  // PLANT: planted_uninit_tg_region_accumulate
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = acc[tid];
}
