// Matrices: layout is columns, products follow linear algebra, transpose and determinant.
#include <gtest/gtest.h>

#include "test_util.h"

using namespace metal;
using metalsim::msl_test::uniform_real;

namespace {

TEST(Matrix, ConstructionIsColumnMajor) {
  float2x3 m(1, 2, 3, 4, 5, 6);  // 2 columns of float3
  EXPECT_EQ(m[0][2], 3.0f);
  EXPECT_EQ(m[1][0], 4.0f);
  float3x3 id(1.0f);
  EXPECT_EQ(id[1][1], 1.0f);
  EXPECT_EQ(id[1][0], 0.0f);
  float2x2 c(float2(1, 2), float2(3, 4));
  EXPECT_EQ(c[1].y, 4.0f);
  half2x2 h = half2x2(c);
  EXPECT_EQ(float(h[1][0]), 3.0f);
}

// Model: out[r] = sum_c m[c][r] * v[c] in float.
TEST(Matrix, ProductsMatchScalarModel) {
  for (int iter = 0; iter < 200; ++iter) {
    float3x4 m;  // 3 columns, 4 rows
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 4; ++r) m[c][r] = uniform_real(-2, 2);
    const float3 v(uniform_real(-2, 2), uniform_real(-2, 2), uniform_real(-2, 2));
    const float4 w(uniform_real(-2, 2), uniform_real(-2, 2), uniform_real(-2, 2),
                   uniform_real(-2, 2));
    const float4 mv = m * v;
    const float3 wm = w * m;
    for (int r = 0; r < 4; ++r) {
      float s = 0;
      for (int c = 0; c < 3; ++c) s += m[c][r] * v[c];
      ASSERT_FLOAT_EQ(mv[r], s);
    }
    for (int c = 0; c < 3; ++c) {
      float s = 0;
      for (int r = 0; r < 4; ++r) s += w[r] * m[c][r];
      ASSERT_FLOAT_EQ(wm[c], s);
    }
    const float4x4 mm = m * transpose(m);  // (4x3) * (3x4)
    const float4 lhs = mm * w, rhs = m * (transpose(m) * w);
    for (int r = 0; r < 4; ++r) ASSERT_NEAR(lhs[r], rhs[r], 1e-4f);
  }
}

TEST(Matrix, TransposeAndArithmetic) {
  float2x3 m(1, 2, 3, 4, 5, 6);
  float3x2 t = transpose(m);
  EXPECT_EQ(t[2][0], 3.0f);
  EXPECT_EQ(t[0][1], 4.0f);
  EXPECT_TRUE(transpose(t) == m);
  float2x3 d = m + m - m * 0.5f;
  EXPECT_EQ(d[1][2], 9.0f);
  EXPECT_EQ((2.0f * m)[0][1], 4.0f);
}

TEST(Matrix, Determinant) {
  EXPECT_EQ(determinant(float2x2(1, 2, 3, 4)), -2.0f);
  EXPECT_EQ(determinant(float3x3(2.0f)), 8.0f);
  float4x4 m(1.0f);
  m[3][0] = 5;  // a shear keeps det 1
  m[2][2] = 3;
  EXPECT_FLOAT_EQ(determinant(m), 3.0f);
  float3x3 s(1, 2, 3, 4, 5, 6, 7, 8, 10);
  EXPECT_FLOAT_EQ(determinant(s), -3.0f);
  EXPECT_FLOAT_EQ(float(determinant(half2x2(2, 0, 0, 3))), 6.0f);
}

}  // namespace
