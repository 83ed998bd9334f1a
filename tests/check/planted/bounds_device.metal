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

// Below the guard page's 16-byte resolution (caught by the access shadow, docs/checks.md): a
// 101-float buffer bound at byte offset 4 holds 100 floats; the last thread reads in[gid + 1],
// the 4 bytes just past the buffer's end, in the slack before its guard page.
kernel void planted_oob_offset_read(device const float* in [[buffer(0)]],
                                    device float* out [[buffer(1)]],
                                    uint gid [[thread_position_in_grid]]) {
  out[gid] = in[gid + 1];  // PLANT: planted_oob_offset_read
}

// The same binding read one element before its start: thread 0 reads in[-1], the buffer's first
// 4 bytes, which the binding at offset 4 does not include. They are the buffer's own, which Metal
// lets a kernel reach (MLX indexes backwards from a bound offset): reported under strict only.
kernel void planted_oob_before_offset(device const float* in [[buffer(0)]],
                                      device float* out [[buffer(1)]],
                                      uint gid [[thread_position_in_grid]]) {
  out[gid] = in[int(gid) - 1];  // PLANT: planted_oob_before_offset
}

// setBytes data: 3 floats bound, 4 threads read one each: thread 3 reads past the 12 bytes.
kernel void planted_oob_bytes_read(constant float* coeffs [[buffer(0)]],
                                   device float* out [[buffer(1)]],
                                   uint gid [[thread_position_in_grid]]) {
  out[gid] = coeffs[gid];  // PLANT: planted_oob_bytes_read
}

// A 12-byte load across a partial granule (the access shadow's inline test of partial granules,
// docs/checks.md): setBytes of two packed_float3 (24 bytes: the second granule's first 8 bytes
// are valid), read by 3 threads. Thread 1's load, bytes 12..23, crosses into the partial granule
// and stays inside it; thread 2's, bytes 24..35, is past the end.
kernel void planted_oob_packed_read(constant packed_float3* points [[buffer(0)]],
                                    device float* out [[buffer(1)]],
                                    uint gid [[thread_position_in_grid]]) {
  float3 p = points[gid];  // PLANT: planted_oob_packed_read
  out[gid] = p.x + p.y * p.z;
}
