// stack.overflow: one lane overflows its stack.
#include <metal_stdlib>
using namespace metal;

// Unbounded recursion on one lane (the depth comes from the host; 0 stops at once).
static uint planted_depth_sum(device const uint* depth, uint level) {  // PLANT: planted_stack_recursion
  uint frame[128];
  for (uint i = 0; i < 128; ++i) frame[i] = level + i;
  if (level >= depth[0]) return frame[level % 128];
  return planted_depth_sum(depth, level + 1) + frame[(level * 7) % 128];
}

kernel void planted_stack_recursion(device const uint* depth [[buffer(0)]],
                                    device uint* out [[buffer(1)]],
                                    uint tid [[thread_position_in_threadgroup]]) {
  out[tid] = tid == 5 ? planted_depth_sum(depth, 0) : tid;
}

// A local array larger than the lane's stack, filled from the top down by every thread: thread
// 0, the first to run, overflows.
kernel void planted_stack_big_array(device const uint* seed [[buffer(0)]],  // PLANT: planted_stack_big_array
                                    device uint* out [[buffer(1)]],
                                    uint tid [[thread_position_in_threadgroup]]) {
  uint big[96 * 1024];
  for (uint i = 96 * 1024; i > 0; --i) big[i - 1] = seed[0] + i;
  out[tid] = big[seed[1] % (96 * 1024)];
}
