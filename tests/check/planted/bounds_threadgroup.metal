// bounds.threadgroup: a [[threadgroup(0)]] region and a kernel-scope threadgroup array, each
// indexed one element past its end (lengths are multiples of 16 bytes, so the element past the
// end is on the region's guard page).
#include <metal_stdlib>
using namespace metal;

// Shifted store into a host-sized region: the last thread writes scratch[64] of 64.
kernel void planted_oob_tg_region(device const float* in [[buffer(0)]],
                                  device float* out [[buffer(1)]],
                                  threadgroup float* scratch [[threadgroup(0)]],
                                  uint tid [[thread_position_in_threadgroup]],
                                  uint gid [[thread_position_in_grid]]) {
  scratch[tid + 1] = in[gid];  // PLANT: planted_oob_tg_region
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = scratch[tid];
}

// Row sentinel one past the row in a kernel-scope array that fills the 32 KiB: thread 63
// writes tile[8192] of 8192.
kernel void planted_oob_tg_array(device const float* in [[buffer(0)]],
                                 device float* out [[buffer(1)]],
                                 uint tid [[thread_position_in_threadgroup]],
                                 uint gid [[thread_position_in_grid]]) {
  threadgroup float tile[8192];
  for (uint i = 0; i < 128; ++i) tile[tid * 128 + i] = in[gid];
  tile[(tid + 1) * 128] = -1.0f;  // PLANT: planted_oob_tg_array
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = tile[tid * 128];
}

// Known gap (planted_expectations.h kKnownGaps): a small kernel-scope array is placed at the
// start of the kernel-scope region, which ends at the 32 KiB budget, so reading one element
// past it stays inside mapped memory. Thread 32 reads tile[64] of 64.
kernel void planted_oob_tg_small_array(device const float* in [[buffer(0)]],
                                       device float* out [[buffer(1)]],
                                       uint tid [[thread_position_in_threadgroup]],
                                       uint gid [[thread_position_in_grid]]) {
  threadgroup float tile[64];
  tile[tid] = in[gid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float pair = tile[tid * 2];  // PLANT: planted_oob_tg_small_array
  out[gid] = pair;
}

// A kernel-scope array of 5 floats (20 bytes, not a multiple of 16: its last granule is part
// slack, caught by the access shadow): threads 5..7 read small[5].
kernel void planted_oob_tg_odd_array(device const float* in [[buffer(0)]],
                                     device float* out [[buffer(1)]],
                                     uint tid [[thread_position_in_threadgroup]],
                                     uint gid [[thread_position_in_grid]]) {
  threadgroup float small[5];
  if (tid < 5) small[tid] = in[gid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = small[min(tid, 5u)];  // PLANT: planted_oob_tg_odd_array
}
