// A program that extends the library for bfloat the way third-party MSL does (MLX's
// bf16_math.h): its own metal:: functions written on Apple's compiler intrinsics, next to the
// headers' bfloat overloads of the same names. tests/front/metal_library_test.cpp runs it.
#include <metal_stdlib>
using namespace metal;

namespace metal {
METAL_FUNC bfloat exp(bfloat x) {
  return static_cast<bfloat>(__metal_exp(static_cast<float>(x), __METAL_MAYBE_FAST_MATH__));
}
// Sums in float and rounds once; the headers' bfloat simd_sum rounds after every addition.
METAL_FUNC bfloat simd_sum(bfloat x) {
  return static_cast<bfloat>(__metal_simd_sum(static_cast<float>(x)));
}
// Shuffles the 16 bits, as a program does for a type the intrinsic does not take.
METAL_FUNC bfloat simd_shuffle_and_fill_down(bfloat x, bfloat fill, ushort delta) {
  return as_type<bfloat>(__metal_simd_shuffle_and_fill_down(
      as_type<ushort>(x), as_type<ushort>(fill), delta, __metal_get_simdgroup_size(ushort())));
}
METAL_FUNC float simd_xor(float x) { return __metal_simd_xor(x); }
namespace fast {
METAL_FUNC bfloat exp(bfloat x) {
  return static_cast<bfloat>(__metal_exp(static_cast<float>(x), __METAL_FAST_MATH__));
}
}  // namespace fast
}  // namespace metal

kernel void library_extension(device const bfloat* x [[buffer(0)]],
                              device bfloat* sum [[buffer(1)]],
                              device bfloat* down [[buffer(2)]],
                              device bfloat* e [[buffer(3)]],
                              device float* bits [[buffer(4)]],
                              uint i [[thread_position_in_grid]]) {
  const bfloat v = x[i];
  sum[i] = simd_sum(v);
  down[i] = simd_shuffle_and_fill_down(v, bfloat(-1.0f), 1);
  e[i] = exp(v) + fast::exp(v);
  bits[i] = simd_xor(float(i));
}

// MSL has no C math library, so no `double log1p(double)` is in scope: with a program's own
// float and bfloat overloads (MLX's utils.h), log1p(half) takes the float one.
inline float log1p(float x) { return metal::log(1.0f + x); }
inline bfloat log1p(bfloat x) { return bfloat(log1p(float(x))); }

kernel void library_log1p(device const half* x [[buffer(0)]],
                          device float* y [[buffer(1)]],
                          uint i [[thread_position_in_grid]]) {
  y[i] = log1p(x[i]);
}
