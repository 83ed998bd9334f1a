// A matrix-vector product in the shape of MLX's gemv and steel GEMM epilogues (axpby), written
// for metalsim's tests: the params struct (vector, bool, packed, nested and array fields) set with
// setBytes, function constants by name (do_axpby, as MLX's) and by index (the simdgroups per
// threadgroup, as ggml's FC_* constants), W bound at a byte offset into a larger buffer, and the
// output bound a second time as the axpby addend (y = alpha * W x + beta * y, in place).
#include <metal_stdlib>

#include "lsim/kernels/params.h"

using namespace metal;

constant bool do_axpby [[function_constant(10)]];
constant short FC_gemv_nsg [[function_constant(LSIM_FC_GEMV + 0)]];

// One row per simdgroup, FC_gemv_nsg simdgroups per threadgroup; lanes stride over the columns.
kernel void lsim_gemv_axpby(device const float* W [[buffer(0)]],
                            device const float* x [[buffer(1)]],
                            device const float* c [[buffer(2)]],
                            device float* y [[buffer(3)]],
                            constant lsim_gemv_params& params [[buffer(4)]],
                            uint tgid [[threadgroup_position_in_grid]],
                            uint sgitg [[simdgroup_index_in_threadgroup]],
                            uint tiisg [[thread_index_in_simdgroup]]) {
  const uint rows = params.dims.x, columns = params.dims.y, ld = params.dims.z;
  const uint r = tgid * uint(FC_gemv_nsg) + sgitg;
  if (r >= rows) return;

  float dot = 0.0f;
  for (uint k = tiisg; k < columns; k += 32) dot += W[r * ld + k] * x[k];
  dot = simd_sum(dot);
  if (tiisg != 0) return;

  float v = params.alpha_beta.x * dot;
  if (do_axpby) v += params.alpha_beta.y * c[r];
  v += params.bias3[r % 3];
  v = v * params.post.mul + params.post.add;
  v = clamp(v, params.clamp_range[0], params.clamp_range[1]);
  if (params.relu) v = max(v, 0.0f);
  y[r] = v;
}
