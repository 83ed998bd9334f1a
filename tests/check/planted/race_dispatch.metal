// race.dispatch: two dispatches Metal may run at the same time, the first writing what the
// second reads, with no barrier between them: the dispatches of a concurrent compute encoder
// without memoryBarrier, and an indirect command buffer's commands without setBarrier. metalsim
// runs them one after another (in order, or reversed under the reversed schedule); the race
// check records both dispatches' device accesses and reports the pair.
#include <metal_stdlib>
using namespace metal;

// The concurrent encoder's pair: mid = in * 2, then out = mid + 1.
kernel void planted_dispatch_producer(device const float* in [[buffer(0)]],
                                      device float* mid [[buffer(1)]],
                                      uint gid [[thread_position_in_grid]]) {
  mid[gid] = in[gid] * 2.0f;  // PLANT2: planted_dispatch_consumer
}

kernel void planted_dispatch_consumer(device const float* mid [[buffer(0)]],
                                      device float* out [[buffer(1)]],
                                      uint gid [[thread_position_in_grid]]) {
  out[gid] = mid[gid] + 1.0f;  // PLANT: planted_dispatch_consumer
}

// The indirect command buffer's pair, the same computation.
kernel void planted_icb_producer(device const float* in [[buffer(0)]],
                                 device float* mid [[buffer(1)]],
                                 uint gid [[thread_position_in_grid]]) {
  mid[gid] = in[gid] * 2.0f;  // PLANT2: planted_icb_consumer
}

kernel void planted_icb_consumer(device const float* mid [[buffer(0)]],
                                 device float* out [[buffer(1)]],
                                 uint gid [[thread_position_in_grid]]) {
  out[gid] = mid[gid] + 1.0f;  // PLANT: planted_icb_consumer
}

// Controls: dispatches of one concurrent group that share only what they read, or that add
// into one counter with atomics (relaxed: no race), race with nothing.
kernel void planted_dispatch_scale(device const float* in [[buffer(0)]],
                                   device float* out [[buffer(1)]],
                                   constant float& factor [[buffer(2)]],
                                   uint gid [[thread_position_in_grid]]) {
  out[gid] = in[gid] * factor;
}

kernel void planted_dispatch_count(device atomic_uint* counter [[buffer(0)]],
                                   uint gid [[thread_position_in_grid]]) {
  atomic_fetch_add_explicit(counter, gid + 1, memory_order_relaxed);
}

// A texture written by one dispatch and read by the next: memoryBarrier(BarrierScopeTextures)
// orders them, a missing one is race.dispatch as for buffers.
kernel void planted_dispatch_texture_write(texture2d<float, access::write> dst [[texture(0)]],
                                           uint2 gid [[thread_position_in_grid]]) {
  dst.write(float4(float(gid.x + 16 * gid.y), 0.0f, 0.0f, 1.0f), gid);
}

kernel void planted_dispatch_texture_read(texture2d<float, access::read> src [[texture(0)]],
                                          device float* out [[buffer(0)]],
                                          uint2 gid [[thread_position_in_grid]]) {
  out[gid.x + 16 * gid.y] = src.read(gid).x;
}
