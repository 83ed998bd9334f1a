// A function constant the kernel reads with no value and no default fails newFunction, naming
// it, as Metal's specialisation does; one read only after is_function_constant_defined (directly
// or through a program-scope constant with a default) needs no value (required_constants_test.cpp).
#include <metal_stdlib>
using namespace metal;

constant int rc_stride [[function_constant(10)]];
constant bool rc_negate [[function_constant(11)]];
constant float rc_bias_value [[function_constant(12)]];
constant float rc_bias = is_function_constant_defined(rc_bias_value) ? rc_bias_value : 0.5f;
constant bool rc_do_negate = is_function_constant_defined(rc_negate) && rc_negate;

kernel void required_constants(device const float* in [[buffer(0)]],
                               device float* out [[buffer(1)]],
                               uint i [[thread_position_in_grid]]) {
  float v = in[i * rc_stride] + rc_bias;
  if (rc_do_negate) v = -v;
  out[i] = v;
}

// Reads no function constant: needs none, whatever the file declares.
kernel void required_none(device const float* in [[buffer(0)]],
                          device float* out [[buffer(1)]],
                          uint i [[thread_position_in_grid]]) {
  out[i] = in[i] * 3.0f;
}
