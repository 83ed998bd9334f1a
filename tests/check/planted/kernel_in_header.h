// Kernels written the way MLX writes most of its kernels: the body is a template in a header,
// and the .metal file only instantiates it under a host name. A report of a bug in the body
// names the header's line (the user's innermost frame), not metalsim's vector header that an
// access was inlined from, and not the engine's. And a helper of a .metal kernel: the report
// names the helper's line, and the kernel's line that called it second.
#pragma once
#include <metal_stdlib>
using namespace metal;

// race.threadgroup: each thread stores its pair at min(tid, 7), so threads 7 .. n-1 all store
// into tile[7] with no order between them (MLX's irfft load clamps its index the same way).
template <typename T>
[[kernel]] void clamped_pairs(device const vec<T, 2>* in [[buffer(0)]],
                              device vec<T, 2>* out [[buffer(1)]],
                              uint tid [[thread_position_in_threadgroup]],
                              uint gid [[thread_position_in_grid]]) {
  threadgroup vec<T, 2> tile[8];
  tile[min(tid, 7u)] = in[gid];  // PLANT: planted_race_in_header
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = tile[tid % 8];
}

// bounds.device: the forward difference with no guard, as planted_oob_device_read: the last
// thread reads in[n], one past the end.
template <typename T>
[[kernel]] void forward_difference(device const T* in [[buffer(0)]], device T* out [[buffer(1)]],
                                   uint gid [[thread_position_in_grid]]) {
  out[gid] = in[gid + 1] - in[gid];  // PLANT: planted_oob_in_header
}

// bounds.device, in a helper that a .metal kernel calls: the last thread reads x[n].
inline float next_minus_this(device const float* x, uint i) {
  return x[i + 1] - x[i];  // PLANT: planted_oob_helper_in_header
}
