// uninit.output: an output element the dispatch never writes (found by poisoning the output).
#include <metal_stdlib>
using namespace metal;

// Off-by-one guard: the last element is never written.
kernel void planted_uninit_output_guard(device const float* in [[buffer(0)]],
                                        device float* out [[buffer(1)]],
                                        constant uint& n [[buffer(2)]],
                                        uint gid [[thread_position_in_grid]]) {
  if (gid < n - 1) out[gid] = in[gid] * 2.0f;  // PLANT: planted_uninit_output_guard
}

// Each thread should write two elements but writes only the even one.
kernel void planted_uninit_output_stride(device const float* in [[buffer(0)]],
                                         device float* out [[buffer(1)]],
                                         uint gid [[thread_position_in_grid]]) {
  out[2 * gid] = in[2 * gid] + in[2 * gid + 1];  // PLANT: planted_uninit_output_stride
}
