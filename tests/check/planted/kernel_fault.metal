// kernel.fault: an integer division by zero. Apple GPUs return an unspecified value (ggml's
// flash_attn_ext_vec computes `iq2 % args.ne32` with ne32 = 0 when there is no mask); the CPU
// traps, and metalsim reports the line instead of ending the process.
#include <metal_stdlib>
using namespace metal;

kernel void planted_divide_by_zero(device const uint* divisors [[buffer(0)]],
                                   device uint* out [[buffer(1)]],
                                   uint tid [[thread_position_in_threadgroup]]) {
  out[tid] = (tid + 100) % divisors[tid];  // PLANT: planted_divide_by_zero
}
