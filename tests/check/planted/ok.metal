// A correct kernel: every planted test dispatches it right after its fault to show the
// process (and the device) goes on.
#include <metal_stdlib>
using namespace metal;

kernel void planted_ok(device uint* out [[buffer(0)]],
                       uint gid [[thread_position_in_grid]]) {
  out[gid] = gid + 1;
}
