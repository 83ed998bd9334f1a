// An argument read only under one value of a function constant (case_file_test's
// ACaseFileBindsWhatTheSpecialisedFunctionReads): with fc_mode 0 the specialised function never
// reads `bias`, so it is inactive and needs no binding; with fc_mode 1 it must be bound.
#include <metal_stdlib>
using namespace metal;

constant int fc_mode [[function_constant(0)]];

kernel void scale_or_bias(device const float* x [[buffer(0)]],
                          device const float* bias [[buffer(1)]],
                          device float* y [[buffer(2)]],
                          uint i [[thread_position_in_grid]]) {
  float v = 2.0f * x[i];
  if (fc_mode == 1) v += bias[i];
  y[i] = v;
}

// The reference: x + x, plus the bias where fc_mode is 1, written another way.
kernel void scale_or_bias_ref(device const float* x [[buffer(0)]],
                              device const float* bias [[buffer(1)]],
                              device float* y [[buffer(2)]],
                              uint i [[thread_position_in_grid]]) {
  y[i] = x[i] + x[i] + (fc_mode == 1 ? bias[i] : 0.0f);
}
