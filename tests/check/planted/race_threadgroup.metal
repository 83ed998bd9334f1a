// race.* (threadgroup memory): a missing threadgroup_barrier between writes and reads of
// threadgroup memory. The result depends on the order the lanes run in: the in-order and the
// reversed schedules give different outputs.
#include <metal_stdlib>
using namespace metal;

// Reverse through threadgroup memory with no barrier between the store and the load.
kernel void planted_race_tg_reverse(device const float* in [[buffer(0)]],
                                    device float* out [[buffer(1)]],
                                    uint tid [[thread_position_in_threadgroup]],
                                    uint n [[threads_per_threadgroup]],
                                    uint gid [[thread_position_in_grid]]) {
  threadgroup float tile[64];
  tile[tid] = in[gid];  // PLANT2: planted_race_tg_reverse
  // missing: threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = tile[n - 1 - tid];  // PLANT: planted_race_tg_reverse
}

// Tree reduction with the barrier inside the loop missing: a lane reads its partner's
// partial sum before the partner has added into it.
kernel void planted_race_tg_reduce(device const float* in [[buffer(0)]],
                                   device float* out [[buffer(1)]],
                                   uint tid [[thread_position_in_threadgroup]],
                                   uint n [[threads_per_threadgroup]],
                                   uint gid [[thread_position_in_grid]],
                                   uint tg [[threadgroup_position_in_grid]]) {
  threadgroup float sums[64];
  sums[tid] = in[gid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint s = n / 2; s > 0; s /= 2) {  // PLANT: planted_race_tg_reduce
    if (tid < s) sums[tid] += sums[tid + s];
    // missing: threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (tid == 0) out[tg] = sums[0];
}

// Write/write: each lane writes its own element, then its neighbour's, with no barrier
// between: lane 1's first write and lane 0's second write hit pairs[1] unordered.
kernel void planted_race_tg_write_write(device const float* in [[buffer(0)]],
                                        device float* out [[buffer(1)]],
                                        uint tid [[thread_position_in_threadgroup]],
                                        uint n [[threads_per_threadgroup]],
                                        uint gid [[thread_position_in_grid]]) {
  threadgroup float pairs[64];
  pairs[tid] = in[gid];                   // PLANT: planted_race_tg_write_write
  pairs[(tid + 1) % n] = 0.5f * in[gid];  // PLANT2: planted_race_tg_write_write
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = pairs[tid];
}
