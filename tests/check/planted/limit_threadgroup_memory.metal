// limit.threadgroup_memory: more than the 32 KiB of threadgroup memory a threadgroup may use.
#include <metal_stdlib>
using namespace metal;

// The host sets a 40 KiB [[threadgroup(0)]] length.
kernel void planted_limit_tg_dynamic(device float* out [[buffer(0)]],
                                     threadgroup float* scratch [[threadgroup(0)]],
                                     uint tid [[thread_position_in_threadgroup]],
                                     uint gid [[thread_position_in_grid]]) {
  scratch[tid] = float(tid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = scratch[tid];
}

// A 24 KiB kernel-scope array plus a 12 KiB [[threadgroup(0)]] region: 36 KiB in all.
kernel void planted_limit_tg_static(device float* out [[buffer(0)]],
                                    threadgroup float* scratch [[threadgroup(0)]],
                                    uint tid [[thread_position_in_threadgroup]],
                                    uint gid [[thread_position_in_grid]]) {
  threadgroup float big[6144];  // PLANT: planted_limit_tg_static
  big[tid] = float(tid);
  scratch[tid] = 1.0f;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = big[tid] + scratch[tid];
}
