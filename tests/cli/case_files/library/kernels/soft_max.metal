// A softmax kernel in the shape of ggml's kernel_soft_max (ggml-metal.metal), written for
// metalsim's tests: headers from the library's root folder (include_dirs), the argument struct
// filled by the host (scale and ALiBi slope bases computed in float on the host), an optional
// mask that the host marks absent by binding src0 again at its index (the kernel compares the
// pointers, as ggml's does), and optional attention sinks under a function constant (an
// argument that exists only when the constant is true).
#include <metal_stdlib>

#include "lsim/kernels/params.h"
#include <lsim/kernels/reduce.h>  // <...>: found in include_dirs only

using namespace metal;

constant bool FC_soft_max_has_sinks [[function_constant(LSIM_FC_SOFT_MAX + 0)]];

// One row of one head per threadgroup; grid (ne01, ne02), threadgroup (nth): a power of two
// from 32, as the host's loop chooses it.
kernel void lsim_soft_max_f32(constant lsim_soft_max_args& args [[buffer(0)]],
                              device const float* src0 [[buffer(1)]],
                              device const float* src1 [[buffer(2)]],
                              device const float* src2
                              [[buffer(3), function_constant(FC_soft_max_has_sinks)]],
                              device float* dst [[buffer(4)]],
                              threadgroup float* buf [[threadgroup(0)]],
                              uint3 tgpig [[threadgroup_position_in_grid]],
                              uint tpitg [[thread_position_in_threadgroup]],
                              uint sgitg [[simdgroup_index_in_threadgroup]],
                              uint tiisg [[thread_index_in_simdgroup]],
                              uint3 ntg [[threads_per_threadgroup]]) {
  const int i01 = tgpig.x;
  const int i02 = tgpig.y;
  const int ne00 = args.ne00;
  const uint nsg = ntg.x / 32;
  const int row = i02 * args.ne01 + i01;

  device const float* x = src0 + row * ne00;
  device const float* mask = src1 != src0 ? src1 + i01 * ne00 : nullptr;
  device float* y = dst + row * ne00;

  float slope = 1.0f;
  if (args.max_bias > 0.0f) {
    const int h = i02;
    const float base = h < int(args.n_head_log2) ? args.m0 : args.m1;
    const int exponent = h < int(args.n_head_log2) ? h + 1 : 2 * (h - int(args.n_head_log2)) + 1;
    slope = pow(base, float(exponent));
  }
  const int last = i01 + ne00 - args.ne01;  // causal: the last column row i01 sees

  float local_max = -INFINITY;
  for (int j = tpitg; j < ne00; j += ntg.x) {
    const float s = x[j] * args.scale + (mask ? slope * mask[j] : 0.0f);
    local_max = max(local_max, args.causal && j > last ? -INFINITY : s);
  }
  float row_max = lsim_threadgroup_reduce(local_max, buf, nsg, sgitg, tiisg, -INFINITY,
                                          lsim_max_op());
  if (FC_soft_max_has_sinks) row_max = max(row_max, src2[i02]);

  float local_sum = 0.0f;
  for (int j = tpitg; j < ne00; j += ntg.x) {
    const float s = x[j] * args.scale + (mask ? slope * mask[j] : 0.0f);
    const float e = args.causal && j > last ? 0.0f : exp(s - row_max);
    local_sum += e;
    y[j] = e;
  }
  float sum = lsim_threadgroup_reduce(local_sum, buf, nsg, sgitg, tiisg, 0.0f, lsim_sum_op());
  if (FC_soft_max_has_sinks) sum += exp(src2[i02] - row_max);

  const float inv = 1.0f / sum;
  for (int j = tpitg; j < ne00; j += ntg.x) y[j] *= inv;
}
