#pragma once
// The relational functions of MSL (spec 6.6): isfinite, isinf, isnan, isnormal, signbit,
// isordered, isunordered (scalar -> bool, vector -> boolN), all, any (boolN -> bool), select.
#include "detail/lift.h"

namespace metal {

#define METAL_REL1(name, expr)                                        \
  inline bool name(float x) { return expr; }                          \
  inline bool name(half x) { return name(float(x)); }                 \
  inline bool name(bfloat x) { return name(float(x)); }               \
  METAL_LIFT1(name, detail::float_elem)
#define METAL_REL2(name, expr)                                                  \
  inline bool name(float x, float y) { return expr; }                           \
  inline bool name(half x, half y) { return name(float(x), float(y)); }         \
  inline bool name(bfloat x, bfloat y) { return name(float(x), float(y)); }     \
  METAL_LIFT2(name, detail::float_elem)

// ------------------------------ isfinite, isinf, isnan, isnormal, signbit
METAL_REL1(isfinite, __builtin_isfinite(x))
METAL_REL1(isinf, __builtin_isinf(x) != 0)
METAL_REL1(isnan, __builtin_isnan(x))
METAL_REL1(signbit, __builtin_signbit(x) != 0)
// isnormal is taken in the argument's own type (a half subnormal is not normal).
inline bool isnormal(float x) { return __builtin_isnormal(x); }
inline bool isnormal(half x) {
  const float a = __builtin_fabsf(float(x));
  return a >= 0x1p-14f && a <= 65504.0f;
}
inline bool isnormal(bfloat x) { return __builtin_isnormal(float(x)); }
METAL_LIFT1(isnormal, detail::float_elem)
// ------------------------------ isordered, isunordered
METAL_REL2(isordered, !__builtin_isnan(x) && !__builtin_isnan(y))
METAL_REL2(isunordered, __builtin_isnan(x) || __builtin_isnan(y))
#undef METAL_REL1
#undef METAL_REL2

// ------------------------------ all, any
constexpr bool all(bool b) { return b; }
constexpr bool any(bool b) { return b; }
template <detail::vector_like V>
  requires std::same_as<detail::elem_t<V>, bool>
constexpr bool all(const V& v) {
  for (int i = 0; i < detail::size_v<V>; ++i)
    if (!v[i]) return false;
  return true;
}
template <detail::vector_like V>
  requires std::same_as<detail::elem_t<V>, bool>
constexpr bool any(const V& v) {
  for (int i = 0; i < detail::size_v<V>; ++i)
    if (v[i]) return true;
  return false;
}

// ------------------------------ select: c ? b : a, per component
template <detail::scalar T>
constexpr T select(T a, T b, bool c) {
  return c ? b : a;
}
template <class A, class B, class C>
  requires detail::vec_args<A, B> &&
           (std::same_as<C, bool> ||
            (detail::vector_like<C> && std::same_as<detail::elem_t<C>, bool> &&
             detail::size_v<C> == detail::size_v<detail::first_vec_t<A, B>>))
constexpr auto select(const A& a, const B& b, const C& c) {
  using T = detail::vec_args_elem_t<A, B>;
  detail::value_t<detail::first_vec_t<A, B>> r;
  for (int i = 0; i < detail::size_v<decltype(r)>; ++i)
    r[i] = detail::lane(c, i) ? static_cast<T>(detail::lane(b, i)) : static_cast<T>(detail::lane(a, i));
  return r;
}

}  // namespace metal
