#pragma once
// matrix<T,C,R> (MSL spec 2.3): C columns, each a vec<T,R>; `m[i]` is column i, `m[i][j]` row j of
// it. Size is C * sizeof(vec<T,R>) (float3x3: 48 bytes, aligned 16). Operators follow linear
// algebra: m * v (v has C components, result R), v * m (v has R components, result C), m * m,
// m op scalar, m +/- m. Construction: one scalar fills the diagonal, C columns, or C*R scalars in
// column-major order; conversion between element types is explicit.
#include "detail/vec_ops.h"

namespace metal {

template <class T, int C, int R>
struct matrix {
  static_assert(C >= 2 && C <= 4 && R >= 2 && R <= 4, "MSL matrices are 2..4 by 2..4");
  vec<T, R> columns[C];

  matrix() = default;
  // ------------------------------ diagonal
  constexpr explicit matrix(T d) {
    for (int c = 0; c < C; ++c) {
      columns[c] = vec<T, R>(T(0));
      if (c < R) columns[c][c] = d;
    }
  }
  // ------------------------------ from columns
  template <class... V>
    requires(sizeof...(V) == C && (std::is_convertible_v<const V&, vec<T, R>> && ...))
  constexpr matrix(const V&... cols) : columns{vec<T, R>(cols)...} {}
  // ------------------------------ from C*R scalars, column-major
  template <class... S>
    requires(sizeof...(S) == C * R && C * R > C && (detail::scalar<S> && ...))
  constexpr matrix(S... s) {
    const T flat[] = {static_cast<T>(s)...};
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < R; ++r) columns[c][r] = flat[c * R + r];
  }
  // ------------------------------ conversion between element types
  template <class U>
    requires(!std::same_as<U, T>)
  constexpr explicit matrix(const matrix<U, C, R>& m) {
    for (int c = 0; c < C; ++c) columns[c] = vec<T, R>(m.columns[c]);
  }

  constexpr vec<T, R>& operator[](int c) { return columns[c]; }
  constexpr const vec<T, R>& operator[](int c) const { return columns[c]; }
};

// ------------------------------ matrix arithmetic
template <class T, int C, int R>
constexpr matrix<T, C, R> operator+(const matrix<T, C, R>& a, const matrix<T, C, R>& b) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m[c] = a[c] + b[c];
  return m;
}
template <class T, int C, int R>
constexpr matrix<T, C, R> operator-(const matrix<T, C, R>& a, const matrix<T, C, R>& b) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m[c] = a[c] - b[c];
  return m;
}
template <class T, int C, int R>
constexpr matrix<T, C, R> operator-(const matrix<T, C, R>& a) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m[c] = -a[c];
  return m;
}
template <class T, int C, int R, detail::scalar S>
constexpr matrix<T, C, R> operator*(const matrix<T, C, R>& a, S s) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m[c] = a[c] * static_cast<T>(s);
  return m;
}
template <class T, int C, int R, detail::scalar S>
constexpr matrix<T, C, R> operator*(S s, const matrix<T, C, R>& a) {
  return a * s;
}
// matrix / scalar, component-wise (ggml: `(float4x4) sr4x4[i]/S`); Apple's compiler accepts it.
template <class T, int C, int R, detail::scalar S>
constexpr matrix<T, C, R> operator/(const matrix<T, C, R>& a, S s) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m[c] = a[c] / static_cast<T>(s);
  return m;
}
// ------------------------------ matrix * vector: sum over columns of column * v[c]
template <class T, int C, int R, class V>
  requires detail::vector_like<V> && std::same_as<detail::elem_t<V>, T> && (detail::size_v<V> == C)
constexpr vec<T, R> operator*(const matrix<T, C, R>& m, const V& v) {
  vec<T, R> r(T(0));
  for (int c = 0; c < C; ++c) r += m[c] * v[c];
  return r;
}
// ------------------------------ vector * matrix: result[c] = dot(v, column c)
template <class T, int C, int R, class V>
  requires detail::vector_like<V> && std::same_as<detail::elem_t<V>, T> && (detail::size_v<V> == R)
constexpr vec<T, C> operator*(const V& v, const matrix<T, C, R>& m) {
  vec<T, C> r;
  for (int c = 0; c < C; ++c) {
    T s = T(0);
    for (int k = 0; k < R; ++k) s += v[k] * m[c][k];
    r[c] = s;
  }
  return r;
}
// ------------------------------ matrix * matrix: (R x K) * (K x C) -> (R x C)
template <class T, int K, int R, int C>
constexpr matrix<T, C, R> operator*(const matrix<T, K, R>& a, const matrix<T, C, K>& b) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m[c] = a * b[c];
  return m;
}
template <class T, int C, int R, class B>
constexpr matrix<T, C, R>& operator+=(matrix<T, C, R>& a, const B& b) {
  return a = a + b;
}
template <class T, int C, int R, class B>
constexpr matrix<T, C, R>& operator-=(matrix<T, C, R>& a, const B& b) {
  return a = a - b;
}
template <class T, int C, int R, class B>
constexpr matrix<T, C, R>& operator*=(matrix<T, C, R>& a, const B& b) {
  return a = a * b;
}
template <class T, int C, int R>
constexpr bool operator==(const matrix<T, C, R>& a, const matrix<T, C, R>& b) {
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r)
      if (a[c][r] != b[c][r]) return false;
  return true;
}

// ------------------------------ named matrix types
#define METAL_MATRIX_TYPES_R(T, C) \
  using T##C##x2 = matrix<T, C, 2>; \
  using T##C##x3 = matrix<T, C, 3>; \
  using T##C##x4 = matrix<T, C, 4>;
#define METAL_MATRIX_TYPES(T)    \
  METAL_MATRIX_TYPES_R(T, 2)     \
  METAL_MATRIX_TYPES_R(T, 3)     \
  METAL_MATRIX_TYPES_R(T, 4)
METAL_MATRIX_TYPES(float)
METAL_MATRIX_TYPES(half)
#undef METAL_MATRIX_TYPES
#undef METAL_MATRIX_TYPES_R

}  // namespace metal
