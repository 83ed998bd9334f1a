#pragma once
// The geometric functions of MSL (spec 6.7) on float, half and bfloat vectors: dot, cross,
// length, length_squared, distance, distance_squared, normalize, faceforward, reflect, refract.
// Reductions accumulate in float and round once to the element type.
#include "detail/math.h"

namespace metal {
namespace detail {
template <class A, class B>
concept geo_pair = vector_like<A> && vector_like<B> && float_elem<elem_t<A>> &&
                   std::same_as<elem_t<A>, elem_t<B>> && size_v<A> == size_v<B>;
}  // namespace detail

// ------------------------------ dot
template <class A, class B>
  requires detail::geo_pair<A, B>
constexpr detail::elem_t<A> dot(const A& a, const B& b) {
  float s = 0.0f;
  for (int i = 0; i < detail::size_v<A>; ++i) s += float(a[i]) * float(b[i]);
  return detail::elem_t<A>(s);
}
// Apple's compiler also takes two scalars (ggml's kernels call dot(float, float)): their
// product, in float, rounded once to the type.
template <class T>
  requires detail::float_elem<T>
constexpr T dot(T a, T b) {
  return T(float(a) * float(b));
}
// ------------------------------ cross (3 components)
template <class A, class B>
  requires detail::geo_pair<A, B> && (detail::size_v<A> == 3)
constexpr detail::value_t<A> cross(const A& a, const B& b) {
  return detail::value_t<A>(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                            a[0] * b[1] - a[1] * b[0]);
}
// ------------------------------ length, length_squared
template <detail::float_vector V>
inline detail::elem_t<V> length_squared(const V& v) {
  return dot(v, v);
}
template <detail::float_vector V>
inline detail::elem_t<V> length(const V& v) {
  float s = 0.0f;
  for (int i = 0; i < detail::size_v<V>; ++i) s += float(v[i]) * float(v[i]);
  return detail::elem_t<V>(__builtin_sqrtf(s));
}
// ------------------------------ distance, distance_squared
template <class A, class B>
  requires detail::geo_pair<A, B>
inline detail::elem_t<A> distance(const A& a, const B& b) {
  return length(a - b);
}
template <class A, class B>
  requires detail::geo_pair<A, B>
inline detail::elem_t<A> distance_squared(const A& a, const B& b) {
  return length_squared(a - b);
}
// ------------------------------ normalize: v / length(v)
template <detail::float_vector V>
inline detail::value_t<V> normalize(const V& v) {
  float s = 0.0f;
  for (int i = 0; i < detail::size_v<V>; ++i) s += float(v[i]) * float(v[i]);
  const float inv = 1.0f / __builtin_sqrtf(s);
  detail::value_t<V> r;
  for (int i = 0; i < detail::size_v<V>; ++i) r[i] = detail::elem_t<V>(float(v[i]) * inv);
  return r;
}
// ------------------------------ faceforward: dot(nref, i) < 0 ? n : -n
template <class N, class I, class R>
  requires detail::geo_pair<N, I> && detail::geo_pair<N, R>
inline detail::value_t<N> faceforward(const N& n, const I& i, const R& nref) {
  return dot(nref, i) < detail::elem_t<N>(0.0f) ? detail::value_t<N>(n) : detail::value_t<N>(-n);
}
// ------------------------------ reflect: i - 2 dot(n, i) n
template <class I, class N>
  requires detail::geo_pair<I, N>
inline detail::value_t<I> reflect(const I& i, const N& n) {
  using T = detail::elem_t<I>;
  return i - n * T(T(2.0f) * dot(n, i));
}
// ------------------------------ refract: eta = ratio of indices; 0 on total internal reflection
template <class I, class N>
  requires detail::geo_pair<I, N>
inline detail::value_t<I> refract(const I& i, const N& n, detail::elem_t<I> eta) {
  using T = detail::elem_t<I>;
  const float d = float(dot(n, i));
  const float e = float(eta);
  const float k = 1.0f - e * e * (1.0f - d * d);
  if (k < 0.0f) return detail::value_t<I>(T(0.0f));
  return i * eta - n * T(e * d + __builtin_sqrtf(k));
}

}  // namespace metal
