#pragma once
// Element-wise operators on vectors, packed vectors and swizzles (MSL spec 3.x). Two vector
// operands need the same element type and size; a scalar operand is converted to the element type
// and broadcast. Arithmetic, bitwise and shift operators yield vec<T,N>; comparisons yield boolN.
// Each component is computed as static_cast<T>(T(a) op T(b)), so char/short arithmetic wraps to
// the element type as on the GPU and half rounds after every operation.
#include "detail/vec.h"

namespace metal {
namespace detail {

// Applies f to each lane of the arguments (vector-likes and broadcast scalars) and collects the
// results in a vector of the first vector-like's size.
template <class T, class F, class... A>
constexpr auto map_as(F f, const A&... a) {
  constexpr int n = [] {
    int m = 0;
    ((m = components<A>() > m ? components<A>() : m), ...);
    return m;
  }();
  using R = decltype(f(static_cast<T>(lane(a, 0))...));
  vec<R, n> r;
  for (int i = 0; i < n; ++i) r[i] = f(static_cast<T>(lane(a, i))...);
  return r;
}

template <class A, class B>
using op_elem_t = elem_t<mix_result_t<A, B>>;

}  // namespace detail

// ------------------------------ arithmetic, bitwise and shift operators
#define METAL_VEC_BINARY(op)                                                                   \
  template <class A, class B>                                                                  \
    requires detail::vec_operands<A, B>                                                        \
  constexpr detail::mix_result_t<A, B> operator op(const A& a, const B& b) {                   \
    using T = detail::op_elem_t<A, B>;                                                         \
    return detail::map_as<T>([](T x, T y) { return static_cast<T>(x op y); }, a, b);          \
  }                                                                                            \
  template <class A, class B>                                                                  \
    requires detail::vector_like<A> && detail::vec_operands<A, B>                              \
  constexpr A& operator op##=(A & a, const B & b) {                                            \
    a = a op b;                                                                                \
    return a;                                                                                  \
  }
METAL_VEC_BINARY(+)
METAL_VEC_BINARY(-)
METAL_VEC_BINARY(*)
METAL_VEC_BINARY(/)
METAL_VEC_BINARY(%)
METAL_VEC_BINARY(&)
METAL_VEC_BINARY(|)
METAL_VEC_BINARY(^)
METAL_VEC_BINARY(<<)
METAL_VEC_BINARY(>>)
#undef METAL_VEC_BINARY

// ------------------------------ comparison operators (yield boolN)
#define METAL_VEC_COMPARE(op)                                                          \
  template <class A, class B>                                                          \
    requires detail::vec_operands<A, B>                                                \
  constexpr auto operator op(const A& a, const B& b) {                                 \
    using T = detail::op_elem_t<A, B>;                                                 \
    return detail::map_as<T>([](T x, T y) -> bool { return x op y; }, a, b);           \
  }
METAL_VEC_COMPARE(==)
METAL_VEC_COMPARE(!=)
METAL_VEC_COMPARE(<)
METAL_VEC_COMPARE(<=)
METAL_VEC_COMPARE(>)
METAL_VEC_COMPARE(>=)
#undef METAL_VEC_COMPARE

// ------------------------------ logical operators on vectors (element-wise, yield boolN)
template <class A, class B>
  requires detail::vec_operands<A, B>
constexpr auto operator&&(const A& a, const B& b) {
  using T = detail::op_elem_t<A, B>;
  return detail::map_as<T>([](T x, T y) -> bool { return x && y; }, a, b);
}
template <class A, class B>
  requires detail::vec_operands<A, B>
constexpr auto operator||(const A& a, const B& b) {
  using T = detail::op_elem_t<A, B>;
  return detail::map_as<T>([](T x, T y) -> bool { return x || y; }, a, b);
}

// ------------------------------ unary operators
template <detail::vector_like V>
constexpr detail::value_t<V> operator-(const V& v) {
  using T = detail::elem_t<V>;
  return detail::map_as<T>([](T x) { return static_cast<T>(-x); }, v);
}
template <detail::vector_like V>
constexpr detail::value_t<V> operator+(const V& v) {
  return detail::value_t<V>(v);
}
template <detail::vector_like V>
constexpr detail::value_t<V> operator~(const V& v) {
  using T = detail::elem_t<V>;
  return detail::map_as<T>([](T x) { return static_cast<T>(~x); }, v);
}
template <detail::vector_like V>
constexpr auto operator!(const V& v) {
  using T = detail::elem_t<V>;
  return detail::map_as<T>([](T x) -> bool { return !x; }, v);
}

// ------------------------------ increment and decrement
template <detail::vector_like V>
constexpr V& operator++(V& v) {
  return v += 1;
}
template <detail::vector_like V>
constexpr V& operator--(V& v) {
  return v -= 1;
}
template <detail::vector_like V>
constexpr detail::value_t<V> operator++(V& v, int) {
  const detail::value_t<V> old = v;
  v += 1;
  return old;
}
template <detail::vector_like V>
constexpr detail::value_t<V> operator--(V& v, int) {
  const detail::value_t<V> old = v;
  v -= 1;
  return old;
}

}  // namespace metal
