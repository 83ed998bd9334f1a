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

// A lane loop's range test (docs/checks.md, "A lane loop's range test"): each lane of one
// simdgroup sums the uints u = lane, lane + 32, ... below `span.y` from `span.x`, then the
// simdgroup adds its lanes' sums. How often a lane's loop runs depends on the lane, so the test of
// the whole lane loop before it bounds the indices over the lanes.
kernel void lane_strided_sum(device const uint* in [[buffer(0)]],
                             device uint* out [[buffer(1)]],
                             constant uint2& span [[buffer(2)]],
                             uint lane [[thread_index_in_simdgroup]]) {
  uint sum = 0;
  for (uint u = lane; u < span.y; u += 32) sum += in[span.x + u];
  sum = simd_sum(sum);
  if (lane == 0) out[0] = sum;
}

// The same through a block and a half of each: u / 2 and u % 2 are no start plus a step per lane.
kernel void lane_strided_halves(device const uint* in [[buffer(0)]],
                                device uint* out [[buffer(1)]],
                                constant uint2& span [[buffer(2)]],
                                uint lane [[thread_index_in_simdgroup]]) {
  uint sum = 0;
  for (uint u = lane; u < span.y; u += 32) {
    const uint block = u / 2;
    const uint half_index = u % 2;
    sum += in[span.x + 2 * block + half_index];
  }
  sum = simd_sum(sum);
  if (lane == 0) out[0] = sum;
}

// The same span in rounds of `width` uints (32 at the tests' lengths, not known to the compiler):
// in round r, lane l reads r + l, r + l + 32, ... below the round's end, and the simdgroup adds
// each round before the next. The round's index crosses the simd_sum in each lane's frame, so the
// lane loops after the first read it from there: their range test bounds it by the lanes' slots.
kernel void lane_rounds_sum(device const uint* in [[buffer(0)]],
                            device uint* out [[buffer(1)]],
                            constant uint2& span [[buffer(2)]],
                            uint lane [[thread_index_in_simdgroup]]) {
  const uint width = 32 * (1 + span.y / 4096);
  uint total = 0;
  for (uint r = 0; r < span.y; r += width) {
    uint mine = 0;
    for (uint i = r + lane; i < min(r + width, span.y); i += 32) mine += in[span.x + i];
    total += simd_sum(mine);
  }
  if (lane == 0) out[0] = total;
}
