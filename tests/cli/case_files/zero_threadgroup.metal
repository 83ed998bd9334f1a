// Threadgroup arguments of length 0 (issue 25 item 6), as ggml's host code binds them:
// setThreadgroupMemoryLength(0, 0) for a kernel that never touches its threadgroup argument.
// Metal allows it; a kernel that does touch such a region is reported where it touches it.
// And dot of two scalars, which Apple's compiler accepts and ggml calls.
#include <metal_stdlib>
using namespace metal;

// Never touches `scratch`: runs with a length of 0.
kernel void scale_ignoring_scratch(device const float* in [[buffer(0)]],
                                   device float* out [[buffer(1)]],
                                   threadgroup float* scratch [[threadgroup(0)]],
                                   uint i [[thread_position_in_grid]]) {
  out[i] = dot(in[i], 2.0f) + dot(half(in[i]), half(0.0f));
}

// Passes each value to its neighbour through `scratch`: with a length of 0, the write faults and
// is reported at its line.
kernel void swap_through_scratch(device const float* in [[buffer(0)]],
                                 device float* out [[buffer(1)]],
                                 threadgroup float* scratch [[threadgroup(0)]],
                                 uint i [[thread_position_in_grid]],
                                 uint t [[thread_position_in_threadgroup]]) {
  scratch[t] = in[i];  // the zero-length write
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[i] = scratch[t ^ 1];
}

// The reference of scale_ignoring_scratch.
kernel void scale_reference(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],
                            uint i [[thread_position_in_grid]]) {
  out[i] = in[i] * 2.0f;
}
