// Kernels that use function constants, or none, for function_constants_test.cpp: linked into the
// test (a build-time library) and compiled from this file at run time (Device::newLibrary(url)).
#include <metal_stdlib>
using namespace metal;

constant int fc_scale [[function_constant(20)]];
constant bool fc_flag [[function_constant(21)]];
constant float fc_gain_value [[function_constant(22)]];
constant float fc_gain = is_function_constant_defined(fc_gain_value) ? fc_gain_value : 2.0f;

// Reads fc_scale with no test: a specialisation must give it a value.
kernel void constants_required(device float* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  v[i] = v[i] * float(fc_scale);
}

// Reads fc_gain_value through fc_gain's default and fc_flag only where it is defined: both
// optional, the function still unusable for a pipeline until it is specialised.
kernel void constants_optional(device float* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  float x = v[i] * fc_gain;
  if (is_function_constant_defined(fc_flag) && fc_flag) x += 1.0f;
  v[i] = x;
}

// Uses no function constant, though its file declares some.
kernel void constants_none(device float* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  v[i] = v[i] + 1.0f;
}
