// race.* (between threadgroups): two threadgroups write the same device element. Threadgroups
// have no order on a GPU; the reversed and random schedules hand them out in another order.
#include <metal_stdlib>
using namespace metal;

// Every threadgroup stores its index into out[0]: the last one to run wins.
kernel void planted_race_device_same_element(device float* out [[buffer(0)]],
                                             uint tid [[thread_position_in_threadgroup]],
                                             uint tg [[threadgroup_position_in_grid]]) {
  if (tid == 0) out[0] = float(tg);  // PLANT: planted_race_device_same_element
  if (tid == 0) out[1 + tg] = 1.0f;
}

// A non-atomic ticket counter shared by all threadgroups: tickets follow the run order.
kernel void planted_race_device_ticket(device uint* counter [[buffer(0)]],
                                       device uint* tickets [[buffer(1)]],
                                       uint tid [[thread_position_in_threadgroup]],
                                       uint tg [[threadgroup_position_in_grid]]) {
  if (tid != 0) return;
  uint t = counter[0];  // PLANT: planted_race_device_ticket
  counter[0] = t + 1;
  tickets[tg] = t;
}
