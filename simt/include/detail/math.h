#pragma once
// The math functions of MSL (spec 6.5) for float, half and bfloat scalars and vectors. float calls
// the C library (correctly rounded or within 1-2 ulp; MSL's precise mode allows 1-4 ulp and its
// fast mode more), except exp, exp2, log, log2 and tanh, and sin, cos and tan, which are written
// out so that lane loops vectorize them (detail/elementary.h: within 2 ulp; detail/trig.h: within
// 1 ulp over every float); half and bfloat compute in float and round once, so they are within 0.5
// ulp of their own type plus float's error. metal::fast:: and metal::precise:: name the same
// functions. Integer and double scalar arguments are taken as float (`sqrt(2)` is a float).
#include "detail/elementary.h"
#include "detail/lift.h"
#include "detail/trig.h"

namespace metal {

// Float, half and bfloat scalar overloads of a 1-argument function, the integer/double fallback,
// and the vector overload. `expr` computes the float result from float x. The bfloat overloads
// are templates (METAL_BFLOAT_OVERLOAD, detail/lift.h says why).
// The float overloads are always inlined: exp, log and tanh are long (detail/elementary.h), and a
// call left in a lane loop keeps it scalar.
#define METAL_MATH1(name, expr)                                      \
  [[gnu::always_inline]] inline float name(float x) { return expr; } \
  inline half name(half x) { return half(name(float(x))); }          \
  METAL_BFLOAT_OVERLOAD B name(B x) { return B(name(float(x))); }    \
  template <detail::plain_arith S>                                   \
  inline float name(S x) {                                           \
    return name(float(x));                                           \
  }                                                                  \
  METAL_LIFT1(name, detail::float_elem)
#define METAL_MATH2(name, expr)                                                  \
  inline float name(float x, float y) { return expr; }                           \
  inline half name(half x, half y) { return half(name(float(x), float(y))); }    \
  METAL_BFLOAT_OVERLOAD B name(B x, B y) { return B(name(float(x), float(y))); } \
  template <detail::plain_arith A, detail::plain_arith B>                        \
  inline float name(A x, B y) {                                                  \
    return name(float(x), float(y));                                             \
  }                                                                              \
  METAL_LIFT2(name, detail::float_elem)
#define METAL_MATH3(name, expr)                                                                 \
  inline float name(float x, float y, float z) { return expr; }                                 \
  inline half name(half x, half y, half z) { return half(name(float(x), float(y), float(z))); } \
  METAL_BFLOAT_OVERLOAD B name(B x, B y, B z) { return B(name(float(x), float(y), float(z))); } \
  METAL_LIFT3(name, detail::float_elem)

namespace detail {
// x reduced to [-1, 1) modulo 2, exact in float; for the *pi functions.
inline double reduce_pi(float x) { return double(__builtin_fmodf(x, 2.0f)); }
inline constexpr double kPi = 3.14159265358979323846;
}  // namespace detail

// ------------------------------ trigonometric
METAL_MATH1(sin, detail::trig::sin(x))
METAL_MATH1(cos, detail::trig::cos(x))
METAL_MATH1(tan, detail::trig::tan(x))
METAL_MATH1(asin, __builtin_asinf(x))
METAL_MATH1(acos, __builtin_acosf(x))
METAL_MATH1(atan, __builtin_atanf(x))
METAL_MATH2(atan2, __builtin_atan2f(x, y))
METAL_MATH1(sinpi, float(__builtin_sin(detail::kPi* detail::reduce_pi(x))))
METAL_MATH1(cospi, float(__builtin_cos(detail::kPi* detail::reduce_pi(x))))
METAL_MATH1(tanpi, float(__builtin_tan(detail::kPi* double(__builtin_fmodf(x, 1.0f)))))
// ------------------------------ hyperbolic
METAL_MATH1(sinh, __builtin_sinhf(x))
METAL_MATH1(cosh, __builtin_coshf(x))
METAL_MATH1(tanh, detail::elementary::tanh(x))
METAL_MATH1(asinh, __builtin_asinhf(x))
METAL_MATH1(acosh, __builtin_acoshf(x))
METAL_MATH1(atanh, __builtin_atanhf(x))
// ------------------------------ exponential and logarithm
METAL_MATH1(exp, detail::elementary::exp(x))
METAL_MATH1(exp2, detail::elementary::exp2(x))
METAL_MATH1(exp10, float(__builtin_exp(double(x) * 2.30258509299404568402)))
METAL_MATH1(log, detail::elementary::log(x))
METAL_MATH1(log2, detail::elementary::log2(x))
METAL_MATH1(log10, __builtin_log10f(x))
METAL_MATH2(pow, __builtin_powf(x, y))
// powr: pow for x >= 0; NaN for x < 0 (MSL).
METAL_MATH2(powr, x < 0.0f ? __builtin_nanf("") : __builtin_powf(x, y))
METAL_MATH1(sqrt, __builtin_sqrtf(x))
METAL_MATH1(rsqrt, float(1.0 / __builtin_sqrt(double(x))))
// ------------------------------ rounding
METAL_MATH1(ceil, __builtin_ceilf(x))
METAL_MATH1(floor, __builtin_floorf(x))
METAL_MATH1(trunc, __builtin_truncf(x))
METAL_MATH1(round, __builtin_roundf(x))  // halfway cases away from zero
METAL_MATH1(rint, __builtin_rintf(x))    // halfway cases to even
// fract: x - floor(x), at most the largest float below 1.
METAL_MATH1(fract, __builtin_fminf(x - __builtin_floorf(x), 0x1.fffffep-1f))
// ------------------------------ abs, fabs
METAL_MATH1(fabs, __builtin_fabsf(x))
inline float abs(float x) { return __builtin_fabsf(x); }
inline half abs(half x) { return half(__builtin_fabsf(float(x))); }
METAL_BFLOAT_OVERLOAD B abs(B x) { return B::from_bits(uint16_t(x.bits & 0x7fffu)); }
// ------------------------------ fmin, fmax (a NaN operand yields the other operand)
METAL_MATH2(fmin, __builtin_fminf(x, y))
METAL_MATH2(fmax, __builtin_fmaxf(x, y))
METAL_MATH3(fmin3, __builtin_fminf(__builtin_fminf(x, y), z))
METAL_MATH3(fmax3, __builtin_fmaxf(__builtin_fmaxf(x, y), z))
METAL_MATH3(fmedian3,
            __builtin_fmaxf(__builtin_fminf(x, y), __builtin_fminf(__builtin_fmaxf(x, y), z)))
// ------------------------------ other binary and ternary
METAL_MATH2(copysign, __builtin_copysignf(x, y))
METAL_MATH2(fdim, __builtin_fdimf(x, y))
METAL_MATH2(fmod, __builtin_fmodf(x, y))
METAL_MATH2(nextafter, __builtin_nextafterf(x, y))
METAL_MATH2(divide, x / y)
METAL_MATH3(fma, __builtin_fmaf(x, y, z))

// ------------------------------ frexp, ldexp, ilogb, modf, sincos
inline float frexp(float x, int& e) { return __builtin_frexpf(x, &e); }
inline half frexp(half x, int& e) { return half(__builtin_frexpf(float(x), &e)); }
template <class V, class E>
  requires detail::float_vector<V> && detail::int_vector<E> &&
           (detail::size_v<V> == detail::size_v<E>)
detail::value_t<V> frexp(const V& x, E& e) {
  detail::value_t<V> r;
  for (int i = 0; i < detail::size_v<V>; ++i) {
    int k = 0;
    r[i] = frexp(x[i], k);
    e[i] = k;
  }
  return r;
}
inline float ldexp(float x, int k) { return __builtin_ldexpf(x, k); }
inline half ldexp(half x, int k) { return half(__builtin_ldexpf(float(x), k)); }
template <class V, class E>
  requires detail::float_vector<V> && (detail::int_vector<E> || std::is_integral_v<E>)
detail::value_t<V> ldexp(const V& x, const E& k) {
  detail::value_t<V> r;
  for (int i = 0; i < detail::size_v<V>; ++i) r[i] = ldexp(x[i], int(detail::lane(k, i)));
  return r;
}
inline int ilogb(float x) { return __builtin_ilogbf(x); }
inline int ilogb(half x) { return __builtin_ilogbf(float(x)); }
template <detail::float_vector V>
vec<int, detail::size_v<V>> ilogb(const V& x) {
  vec<int, detail::size_v<V>> r;
  for (int i = 0; i < detail::size_v<V>; ++i) r[i] = ilogb(x[i]);
  return r;
}
inline float modf(float x, float& ip) { return __builtin_modff(x, &ip); }
inline half modf(half x, half& ip) {
  float f = 0.0f;
  const half r = half(__builtin_modff(float(x), &f));
  ip = half(f);
  return r;
}
template <class V, class W>
  requires detail::float_vector<V> && detail::vector_like<W>
detail::value_t<V> modf(const V& x, W& ip) {
  detail::value_t<V> r;
  for (int i = 0; i < detail::size_v<V>; ++i) {
    detail::elem_t<V> k{};
    r[i] = modf(x[i], k);
    ip[i] = k;
  }
  return r;
}
// sincos returns sin(x) and stores cos(x), the same bits as sin and cos; float shares one argument
// reduction (detail/trig.h). Always inlined, as the float functions are, so a lane loop calling it
// vectorizes.
[[gnu::always_inline]] inline float sincos(float x, float& c) { return detail::trig::sincos(x, c); }
template <class T>
  requires detail::float_elem<T> || detail::float_vector<T>
[[gnu::always_inline]] inline auto sincos(const T& x, T& c) {
  c = cos(x);
  return sin(x);
}

#undef METAL_MATH1
#undef METAL_MATH2
#undef METAL_MATH3

}  // namespace metal
