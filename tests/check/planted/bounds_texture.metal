// bounds.texture: a read past a texture's width and a write past its height. The mem check
// stops the lane at the call; with it off, the read returns zero and the write is dropped.
#include <metal_stdlib>
using namespace metal;

// Off by one in a horizontal difference: the last column reads (width, y).
kernel void planted_texture_read_past_width(texture2d<float, access::read> src [[texture(0)]],
                                            texture2d<float, access::write> dst [[texture(1)]],
                                            uint2 gid [[thread_position_in_grid]]) {
  const float4 right = src.read(uint2(gid.x + 1, gid.y));  // PLANT: planted_texture_read_past_width
  dst.write(right - src.read(gid), gid);
}

// A vertical flip with the wrong origin: row 0 writes row height, one past the last.
kernel void planted_texture_write_past_height(texture2d<float, access::read> src [[texture(0)]],
                                              texture2d<float, access::write> dst [[texture(1)]],
                                              uint2 gid [[thread_position_in_grid]]) {
  const uint h = src.get_height();
  dst.write(src.read(gid), uint2(gid.x, h - gid.y));  // PLANT: planted_texture_write_past_height
}
