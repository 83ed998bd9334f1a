// An argument under [[function_constant(c)]] exists only while c is true: Metal drops it
// otherwise and the host binds nothing there (MLX's sdpa_vector masks, the steel GEMM's C).
// optional_args_test.cpp runs it with the constant false (nothing bound at 2 and 3), true
// (both bound) and true with nothing bound (api.unbound_buffer).
#include <metal_stdlib>
using namespace metal;

constant bool use_offsets [[function_constant(3)]];
constant bool use_scale = use_offsets && is_function_constant_defined(use_offsets);

kernel void optional_args(device const float* in [[buffer(0)]],
                          device float* out [[buffer(1)]],
                          device const float* offsets [[buffer(2), function_constant(use_offsets)]],
                          constant float& scale [[buffer(3), function_constant(use_scale)]],
                          uint i [[thread_position_in_grid]]) {
  float v = in[i] * 2.0f;
  if (use_offsets) v += offsets[i];
  if (use_scale) v *= scale;
  out[i] = v;
}

// Reads and writes its optional arguments whatever the constant says. With the constant false
// they do not exist: a read gives 0 (Metal would have folded the constant, making such loads dead
// code), a write is reported.
kernel void optional_arg_misuse(device const float* in [[buffer(0)]],
                                device float* out [[buffer(1)]],
                                device const float* offsets [[buffer(2), function_constant(use_offsets)]],
                                device float* debug [[buffer(4), function_constant(use_offsets)]],
                                constant uint& write_debug [[buffer(5)]],
                                uint i [[thread_position_in_grid]]) {
  out[i] = in[i] + offsets[i];
  if (write_debug != 0) debug[i] = out[i];
}
