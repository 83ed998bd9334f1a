// The kernels of kernel_in_header.h, instantiated as MLX instantiates its kernels, and a kernel
// that calls one of its helpers.
#include "kernel_in_header.h"

template [[host_name("planted_race_in_header")]] [[kernel]] void clamped_pairs<float>(
    device const float2* in [[buffer(0)]], device float2* out [[buffer(1)]],
    uint tid [[thread_position_in_threadgroup]], uint gid [[thread_position_in_grid]]);

template [[host_name("planted_oob_in_header")]] [[kernel]] void forward_difference<float>(
    device const float* in [[buffer(0)]], device float* out [[buffer(1)]],
    uint gid [[thread_position_in_grid]]);

// The helper's read past the end, called from this file (kernel_in_header.h).
kernel void planted_oob_helper_in_header(device const float* in [[buffer(0)]],
                                         device float* out [[buffer(1)]],
                                         uint gid [[thread_position_in_grid]]) {
  out[gid] = next_minus_this(in, gid);  // CALL: planted_oob_helper_in_header
}
