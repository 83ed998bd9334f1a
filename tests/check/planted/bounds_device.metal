// bounds.device: one read and one write past the end of a device buffer. The host binds
// buffers whose lengths are multiples of 16, so the first byte past the end is on the guard page.
#include <metal_stdlib>
using namespace metal;

// Off by one in the source index: the last thread reads in[n], one past the end.
kernel void planted_oob_device_read(device const float* in [[buffer(0)]],
                                    device float* out [[buffer(1)]],
                                    uint gid [[thread_position_in_grid]]) {
  out[gid] = in[gid + 1] - in[gid];  // PLANT: planted_oob_device_read
}

// A 2-D store with the wrong row pitch (width + 1): the last row runs past the end.
kernel void planted_oob_device_write(device float* out [[buffer(0)]],
                                     constant uint& width [[buffer(1)]],
                                     uint2 pos [[thread_position_in_grid]]) {
  uint pitch = width + 1;
  out[pos.y * pitch + pos.x] = float(pos.x + pos.y);  // PLANT: planted_oob_device_write
}
