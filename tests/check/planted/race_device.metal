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

// Every threadgroup sets the same flag to the same value: the result is the same in every
// order (the schedule comparison cannot see it), yet two threadgroups write one element with
// nothing ordering them, a data race by MSL's memory model.
kernel void planted_race_device_same_value(device uint* flag [[buffer(0)]],
                                           device uint* out [[buffer(1)]],
                                           uint tid [[thread_position_in_threadgroup]],
                                           uint gid [[thread_position_in_grid]],
                                           uint tg [[threadgroup_position_in_grid]]) {
  if (tid == 0) flag[0] = 1u;  // PLANT: planted_race_device_same_value // PLANT2: planted_race_device_same_value
  out[gid] = tg;
}

// Between lanes of one threadgroup: each lane writes its element of a device buffer and reads
// its neighbour's, with no barrier between.
kernel void planted_race_device_lanes(device float* data [[buffer(0)]],
                                      device float* out [[buffer(1)]],
                                      uint tid [[thread_position_in_threadgroup]],
                                      uint n [[threads_per_threadgroup]],
                                      uint gid [[thread_position_in_grid]]) {
  data[gid] = float(gid) + 0.5f;  // PLANT: planted_race_device_lanes
  out[gid] = data[gid - tid + (tid + 1) % n];  // PLANT2: planted_race_device_lanes
}

// Atomics race with nothing (Metal's are relaxed): every thread of every threadgroup adds to one
// counter, and reads it atomically. The race check must stay silent.
kernel void planted_race_atomics_ok(device atomic_uint* counter [[buffer(0)]],
                                    device uint* out [[buffer(1)]],
                                    uint gid [[thread_position_in_grid]]) {
  atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed);
  out[gid] = atomic_load_explicit(counter, memory_order_relaxed) > 0u ? 1u : 0u;
}
