// Kernels that log (logging_test.cpp): os_log_default, a custom os_log and printf, around a
// barrier, so that the order of lines across lanes shows how the threadgroup ran.
#include <metal_stdlib>
#include <metal_logging>
using namespace metal;

constant os_log sums_log("com.example.logging", "sums");

kernel void log_sums(device const float* x [[buffer(0)]],
                     device float* out [[buffer(1)]],
                     threadgroup float* partial [[threadgroup(0)]],
                     uint tid [[thread_position_in_threadgroup]],
                     uint tg [[threadgroup_position_in_grid]],
                     uint n [[threads_per_threadgroup]]) {
  const float v = x[tg * n + tid];
  os_log_default.log("before %u: %.2f", tid, v);
  partial[tid] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (tid == 0) {
    float s = 0.0f;
    for (uint i = 0; i < n; ++i) s += partial[i];
    out[tg] = s;
    sums_log.log_info("sum %.3f", s);
  }
  printf("after %u", tid);
}

// One line per thread of a 2D grid dispatched in threads (partial threadgroups at the edges).
kernel void log_positions(device uint* out [[buffer(0)]],
                          uint2 gid [[thread_position_in_grid]],
                          uint2 grid [[threads_per_grid]]) {
  out[gid.y * grid.x + gid.x] = 1;
  sums_log.log_debug("gid %u,%u", gid.x, gid.y);
}
