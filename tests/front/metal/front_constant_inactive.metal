// Arguments a build-time kernel uses only under a function constant (docs/front.md, "Inactive
// arguments"): the kernel is compiled before any values are known, so it reads its constants at
// run time, yet a pipeline whose values skip every use of an argument has it inactive, as Metal's
// specialisation makes it: no binding needed, reflection says unused. inactive_args_test.cpp
// runs it against a scalar reference with each value.
#include <metal_stdlib>
using namespace metal;

constant bool ci_has_bias [[function_constant(40)]];
constant int ci_mode [[function_constant(41)]];
// Derived, as ggml's `constant bool has_mask = FC_x != 0;`.
constant bool ci_scaled = ci_mode == 2;
// Optional, as MLX's `is_function_constant_defined(c) ? c : default`.
constant float ci_clamp_given [[function_constant(42)]];
constant float ci_clamp = is_function_constant_defined(ci_clamp_given) ? ci_clamp_given : 0.0f;

// out = clamp_or_not(((in + bias if ci_has_bias) * scale if ci_mode == 2) + shift[i] if
// ci_mode == 3); the clamp at `limit` applies when ci_clamp > 1.5.
kernel void constant_inactive(device const float* in [[buffer(0)]],
                              device float* out [[buffer(1)]],
                              device const float* bias [[buffer(2)]],
                              constant float& scale [[buffer(3)]],
                              device const float* shift [[buffer(4)]],
                              constant float& limit [[buffer(5)]],
                              uint i [[thread_position_in_grid]]) {
  float v = in[i];
  if (ci_has_bias) v += bias[i];
  if (ci_scaled) v *= scale;
  if (ci_mode == 3) v += shift[i];
  if (ci_clamp > 1.5f) v = min(v, limit);
  out[i] = v;
}
