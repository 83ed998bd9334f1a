#pragma once
// The compiler intrinsics Apple's MSL headers are written with (`__metal_exp(x, fast)`,
// `__metal_simd_sum(x)`, ...) and the math-mode flags they take. Third-party headers that
// extend the standard library call them directly: MLX's bf16_math.h defines its bfloat
// `metal::exp` as `__metal_exp(float(x), __METAL_MAYBE_FAST_MATH__)`. Each intrinsic here
// forwards to our library function of the same meaning, so it takes whatever that function
// takes (float, half, vectors).
//
// The math-mode flag is accepted and ignored: metal::fast and metal::precise name the same
// accurate functions (detail/fast_precise.h). A simd intrinsic is one collective whose call
// site is the intrinsic's caller (the third-party header's line), not the kernel's line.
#include <cstdint>
#include <source_location>
#include <type_traits>

#include "metal_math"
#include "metal_simdgroup"

#ifndef __METAL_FAST_MATH__
#define __METAL_FAST_MATH__ true
#endif
#ifndef __METAL_PRECISE_MATH__
#define __METAL_PRECISE_MATH__ false
#endif
// Apple's compiler builds with fast math unless told otherwise.
#ifndef __METAL_MAYBE_FAST_MATH__
#define __METAL_MAYBE_FAST_MATH__ __METAL_FAST_MATH__
#endif

// ------------------------------ math: __metal_NAME(args..., mode) -> metal::NAME(args...)
#define METALSIM_INTRINSIC1(name)                  \
  template <class T>                               \
  inline auto __metal_##name(T x, bool /*mode*/) { \
    return ::metal::name(x);                       \
  }
#define METALSIM_INTRINSIC2(name)                       \
  template <class T>                                    \
  inline auto __metal_##name(T x, T y, bool /*mode*/) { \
    return ::metal::name(x, y);                         \
  }
#define METALSIM_INTRINSIC3(name)                            \
  template <class T>                                         \
  inline auto __metal_##name(T x, T y, T z, bool /*mode*/) { \
    return ::metal::name(x, y, z);                           \
  }
// Apple's absolute value of a floating type is __metal_fabs (MLX's bfloat abs calls it).
METALSIM_INTRINSIC1(fabs)
METALSIM_INTRINSIC1(acos)
METALSIM_INTRINSIC1(acosh)
METALSIM_INTRINSIC1(asin)
METALSIM_INTRINSIC1(asinh)
METALSIM_INTRINSIC1(atan)
METALSIM_INTRINSIC1(atanh)
METALSIM_INTRINSIC1(ceil)
METALSIM_INTRINSIC1(cos)
METALSIM_INTRINSIC1(cosh)
METALSIM_INTRINSIC1(cospi)
METALSIM_INTRINSIC1(exp)
METALSIM_INTRINSIC1(exp10)
METALSIM_INTRINSIC1(exp2)
METALSIM_INTRINSIC1(floor)
METALSIM_INTRINSIC1(fract)
METALSIM_INTRINSIC1(log)
METALSIM_INTRINSIC1(log10)
METALSIM_INTRINSIC1(log2)
METALSIM_INTRINSIC1(rint)
METALSIM_INTRINSIC1(round)
METALSIM_INTRINSIC1(rsqrt)
METALSIM_INTRINSIC1(sin)
METALSIM_INTRINSIC1(sinh)
METALSIM_INTRINSIC1(sinpi)
METALSIM_INTRINSIC1(sqrt)
METALSIM_INTRINSIC1(tan)
METALSIM_INTRINSIC1(tanh)
METALSIM_INTRINSIC1(tanpi)
METALSIM_INTRINSIC1(trunc)
METALSIM_INTRINSIC2(atan2)
METALSIM_INTRINSIC2(divide)
METALSIM_INTRINSIC2(fmax)
METALSIM_INTRINSIC2(fmin)
METALSIM_INTRINSIC2(fmod)
METALSIM_INTRINSIC2(pow)
METALSIM_INTRINSIC2(powr)
METALSIM_INTRINSIC3(fmax3)
METALSIM_INTRINSIC3(fmin3)
METALSIM_INTRINSIC3(fmedian3)
#undef METALSIM_INTRINSIC1
#undef METALSIM_INTRINSIC2
#undef METALSIM_INTRINSIC3

// The intrinsics that take no mode: fma and nextafter are exact in every mode.
template <class T>
inline auto __metal_fma(T x, T y, T z) {
  return ::metal::fma(x, y, z);
}
template <class T>
inline auto __metal_nextafter(T x, T y) {
  return ::metal::nextafter(x, y);
}
// frexp stores the exponent through a pointer; ldexp takes the mode after the exponent.
template <class T>
inline auto __metal_frexp(T x, int* e) {
  return ::metal::frexp(x, *e);
}
template <class T>
inline auto __metal_ldexp(T x, int k, bool /*mode*/) {
  return ::metal::ldexp(x, k);
}

// ------------------------------ simdgroup
// The simdgroup width, in the type of the (unused) argument.
template <class T>
constexpr T __metal_get_simdgroup_size(T) {
  return T(::metal::detail::simd::kSimdWidth);
}

#define METALSIM_SIMD_INTRINSIC1(name)                                                      \
  template <class T>                                                                        \
  inline auto __metal_##name(const T& x,                                                    \
                             std::source_location site = std::source_location::current()) { \
    return ::metal::name(x, site);                                                          \
  }
#define METALSIM_SIMD_INTRINSIC2(name)                                                      \
  template <class T>                                                                        \
  inline auto __metal_##name(const T& x, ushort arg,                                        \
                             std::source_location site = std::source_location::current()) { \
    return ::metal::name(x, arg, site);                                                     \
  }
#define METALSIM_SIMD_INTRINSIC4(name)                                                      \
  template <class T>                                                                        \
  inline auto __metal_##name(const T& x, const T& fill, ushort delta, ushort modulo,        \
                             std::source_location site = std::source_location::current()) { \
    return ::metal::name(x, fill, delta, modulo, site);                                     \
  }
METALSIM_SIMD_INTRINSIC1(simd_sum)
METALSIM_SIMD_INTRINSIC1(simd_product)
METALSIM_SIMD_INTRINSIC1(simd_min)
METALSIM_SIMD_INTRINSIC1(simd_max)
METALSIM_SIMD_INTRINSIC1(simd_prefix_inclusive_sum)
METALSIM_SIMD_INTRINSIC1(simd_prefix_inclusive_product)
METALSIM_SIMD_INTRINSIC1(simd_prefix_exclusive_sum)
METALSIM_SIMD_INTRINSIC1(simd_prefix_exclusive_product)
METALSIM_SIMD_INTRINSIC2(simd_broadcast)
METALSIM_SIMD_INTRINSIC2(simd_shuffle)
METALSIM_SIMD_INTRINSIC2(simd_shuffle_up)
METALSIM_SIMD_INTRINSIC2(simd_shuffle_down)
METALSIM_SIMD_INTRINSIC2(simd_shuffle_xor)
METALSIM_SIMD_INTRINSIC2(simd_shuffle_rotate_up)
METALSIM_SIMD_INTRINSIC2(simd_shuffle_rotate_down)
METALSIM_SIMD_INTRINSIC4(simd_shuffle_and_fill_up)
METALSIM_SIMD_INTRINSIC4(simd_shuffle_and_fill_down)
#undef METALSIM_SIMD_INTRINSIC1
#undef METALSIM_SIMD_INTRINSIC2
#undef METALSIM_SIMD_INTRINSIC4

namespace metal::detail::simd {
template <class T>
using bits_of = std::conditional_t<sizeof(T) == 2, uint16_t,
                                   std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
}  // namespace metal::detail::simd

// The bitwise simd reductions work on the bits: MLX instantiates simd_xor for float, which Apple's
// intrinsic accepts, so a floating scalar is xor-ed as the unsigned integer of its size.
#define METALSIM_SIMD_BITWISE_INTRINSIC(name)                                            \
  template <class T>                                                                     \
  inline T __metal_##name(const T& x,                                                    \
                          std::source_location site = std::source_location::current()) { \
    if constexpr (::metal::detail::floating<T>) {                                        \
      using U = ::metal::detail::simd::bits_of<T>;                                       \
      return __builtin_bit_cast(T, ::metal::name(__builtin_bit_cast(U, x), site));       \
    } else {                                                                             \
      return ::metal::name(x, site);                                                     \
    }                                                                                    \
  }
METALSIM_SIMD_BITWISE_INTRINSIC(simd_and)
METALSIM_SIMD_BITWISE_INTRINSIC(simd_or)
METALSIM_SIMD_BITWISE_INTRINSIC(simd_xor)
#undef METALSIM_SIMD_BITWISE_INTRINSIC
