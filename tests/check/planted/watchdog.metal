// watchdog.timeout: a lane that never finishes.
#include <metal_stdlib>
using namespace metal;

// Lane 3 spins on a flag nobody sets.
kernel void planted_watchdog_spin(device const uint* flag [[buffer(0)]],
                                  device uint* out [[buffer(1)]],
                                  uint tid [[thread_position_in_threadgroup]]) {
  out[tid] = 0;
  if (tid == 3) {
    while (flag[0] == 0) out[tid] += 1;  // PLANT: planted_watchdog_spin
  }
}

// A loop stepping by 2 towards an odd bound (lane 7 only) never meets it.
kernel void planted_watchdog_step(device uint* out [[buffer(0)]],
                                  uint tid [[thread_position_in_threadgroup]]) {
  uint n = tid == 7 ? 9u : 8u;
  out[tid] = 0;
  for (uint i = 0; i != n; i += 2) out[tid] += 1;  // PLANT: planted_watchdog_step
}
