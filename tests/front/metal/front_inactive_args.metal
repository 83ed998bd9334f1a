// Arguments the optimised kernel never reads are inactive (docs/msl-coverage.md): no binding is
// needed and the reflection says unused, as Metal's compiler makes them. scale_bias<false> leaves
// `bias`, `beta` and `partial` unread, as MLX's gemv leaves its bias and its axpby factors when
// its template parameter kDoAxpby is false; scale_bias<true> reads all. inactive_args_test.cpp
// runs both against a scalar reference.
#include <metal_stdlib>
using namespace metal;

// Passes `unused` on without reading it: its caller's argument is still unread.
static float ignore_second(float v, device const float* unused) {
  (void)unused;
  return v;
}

template <bool kBias>
kernel void scale_bias(device const float* in [[buffer(0)]],
                       device float* out [[buffer(1)]],
                       device const float* bias [[buffer(2)]],
                       constant float& alpha [[buffer(3)]],
                       constant float& beta [[buffer(4)]],
                       threadgroup float* partial [[threadgroup(0)]],
                       uint i [[thread_position_in_grid]],
                       uint lid [[thread_position_in_threadgroup]]) {
  float v = ignore_second(in[i] * alpha, bias);
  if (kBias) {
    partial[lid] = beta * bias[i];
    v += partial[lid];
  }
  out[i] = v;
}

template [[host_name("scale_bias_off")]] [[kernel]] decltype(scale_bias<false>) scale_bias<false>;
template [[host_name("scale_bias_on")]] [[kernel]] decltype(scale_bias<true>) scale_bias<true>;
