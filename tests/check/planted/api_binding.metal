// api.unbound_buffer and api.offset: host-side binding mistakes, caught at commit before the
// kernel runs.
#include <metal_stdlib>
using namespace metal;

kernel void planted_api_copy(device const float* in [[buffer(0)]],
                             device float* out [[buffer(1)]],
                             uint gid [[thread_position_in_grid]]) {
  out[gid] = in[gid];
}

struct Scale {
  float4 factor;
};

kernel void planted_api_scale(device const float4* in [[buffer(0)]],
                              device float4* out [[buffer(1)]],
                              constant Scale& scale [[buffer(2)]],
                              threadgroup float4* scratch [[threadgroup(0)]],
                              uint tid [[thread_position_in_threadgroup]],
                              uint gid [[thread_position_in_grid]]) {
  scratch[tid] = in[gid] * scale.factor;
  out[gid] = scratch[tid];
}
