// Loops whose accesses the access-check pass tests once before the loop (docs/checks.md, "Range
// tests hoisted out of loops"), over spans small enough for the inline test and larger: one
// thread sums `span.y` floats from `span.x`, and the host sweeps where the span ends, exactly at a
// buffer's odd end or one float past it (hoisted_range_test.cpp).
#include <metal_stdlib>
using namespace metal;

// A 64-bit index: the address walk itself.
kernel void range_sum_ulong(device const float* in [[buffer(0)]],
                            device float* out [[buffer(1)]],
                            constant uint2& span [[buffer(2)]],
                            uint gid [[thread_position_in_grid]]) {
  float sum = 0.0f;
  for (ulong i = 0; i < ulong(span.y); ++i) sum += in[ulong(span.x) + i];
  out[gid] = sum;
}

// A 32-bit index, extended in the address: the pass also tests that it does not wrap.
kernel void range_sum_uint(device const float* in [[buffer(0)]],
                           device float* out [[buffer(1)]],
                           constant uint2& span [[buffer(2)]],
                           uint gid [[thread_position_in_grid]]) {
  float sum = 0.0f;
  for (uint i = 0; i < span.y; ++i) sum += in[span.x + i];
  out[gid] = sum;
}

// Downwards from the span's last float to its first.
kernel void range_sum_down(device const float* in [[buffer(0)]],
                           device float* out [[buffer(1)]],
                           constant uint2& span [[buffer(2)]],
                           uint gid [[thread_position_in_grid]]) {
  float sum = 0.0f;
  for (int i = int(span.y) - 1; i >= 0; --i) sum += in[int(span.x) + i];
  out[gid] = sum;
}
