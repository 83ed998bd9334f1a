#pragma once
// transpose and determinant (MSL spec 6.8).
#include "detail/matrix.h"

namespace metal {

// ------------------------------ transpose
template <class T, int C, int R>
constexpr matrix<T, R, C> transpose(const matrix<T, C, R>& m) {
  matrix<T, R, C> t;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) t[r][c] = m[c][r];
  return t;
}

// ------------------------------ determinant (square matrices; computed in float)
template <class T>
constexpr T determinant(const matrix<T, 2, 2>& m) {
  return T(float(m[0][0]) * float(m[1][1]) - float(m[1][0]) * float(m[0][1]));
}
template <class T>
constexpr T determinant(const matrix<T, 3, 3>& m) {
  auto e = [&](int c, int r) { return float(m[c][r]); };
  return T(e(0, 0) * (e(1, 1) * e(2, 2) - e(2, 1) * e(1, 2)) -
           e(1, 0) * (e(0, 1) * e(2, 2) - e(2, 1) * e(0, 2)) +
           e(2, 0) * (e(0, 1) * e(1, 2) - e(1, 1) * e(0, 2)));
}
template <class T>
constexpr T determinant(const matrix<T, 4, 4>& m) {
  // Laplace expansion along column 0.
  float det = 0.0f;
  for (int row = 0; row < 4; ++row) {
    matrix<float, 3, 3> minor;
    for (int c = 1; c < 4; ++c)
      for (int r = 0, k = 0; r < 4; ++r)
        if (r != row) minor[c - 1][k++] = float(m[c][r]);
    const float cof = float(m[0][row]) * determinant(minor);
    det += (row % 2 == 0) ? cof : -cof;
  }
  return T(det);
}

}  // namespace metal
