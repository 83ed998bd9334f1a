// What ggml-metal.metal (docs/yardstick.md) needed from the MSL headers beyond the per-family
// tests: global type names, the compiler's half limits, matrix / scalar, braced assignment to a
// vector, make_filled_simdgroup_matrix's default row count. Each against a scalar model.
#include <gtest/gtest.h>

#include <type_traits>

#include "test_util.h"

// Deliberately no `using namespace metal;` before these: in MSL the type names are global.
typedef half test_ggml_half;
typedef half2 test_ggml_half2;
static_assert(std::is_same_v<test_ggml_half, metal::half>);
static_assert(std::is_same_v<test_ggml_half2, metal::half2>);
static_assert(std::is_same_v<::float4x4, metal::float4x4> &&
              std::is_same_v<::half4x4, metal::half4x4>);
static_assert(std::is_same_v<::uint, unsigned int> &&
              std::is_same_v<::packed_float3, metal::packed_float3>);

using namespace metal;
using metalsim::msl_test::uniform_real;

namespace {

// With the using-directive the global and metal:: names are one type, not an ambiguity.
static_assert(std::is_same_v<float4, metal::float4> && std::is_same_v<bfloat2, metal::bfloat2>);

TEST(MslNames, CompilerHalfLimitsAreHalfConstants) {
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(__FLT16_MAX__)>, half>);
  EXPECT_EQ(float(__FLT16_MAX__), 65504.0f);
  EXPECT_EQ(float(__FLT16_MIN__), 0x1p-14f);
  EXPECT_EQ(float(__FLT16_EPSILON__), 0x1p-10f);
  EXPECT_EQ(float(__FLT16_DENORM_MIN__), 0x1p-24f);
  half m = -__FLT16_MAX__ / 2;  // ggml's flash attention initial maximum
  EXPECT_EQ(float(m), -32752.0f);
}

TEST(MslNames, MatrixDividedByScalarIsComponentwise) {
  for (int trial = 0; trial < 20; ++trial) {
    float4x4 a;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) a[c][r] = uniform_real(-10, 10);
    const float s = uniform_real(0.5f, 4.0f);
    float4x4 q = a / s;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) EXPECT_EQ(q[c][r], a[c][r] / s);
  }
  half2x3 h(1, 2, 3, 4, 5, 6);
  half2x3 hq = h / 2;
  EXPECT_EQ(float(hq[1][2]), 3.0f);
}

TEST(MslNames, BracedListAssignsEachComponent) {
  float tbl[8] = {0.5f, -1, 2, 3, 4, 5, 6, 7};
  unsigned char idx[4] = {3, 0, 7, 1};
  float4 v = 9;
  v = {tbl[idx[0]], tbl[idx[1]], tbl[idx[2]], tbl[idx[3]]};  // ggml kernel_mul_mv_iq4_nl
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v[i], tbl[idx[i]]);
  half2 h;
  h = {half(1.5), half(-2)};
  EXPECT_EQ(float(h.x), 1.5f);
  EXPECT_EQ(float(h.y), -2.0f);
  float4 w = 0;
  w = v;  // the ordinary assignment still applies
  EXPECT_EQ(w[2], tbl[7]);
}

TEST(MslNames, FilledSimdgroupMatrixRowsDefaultToColumns) {
  static_assert(
      std::is_same_v<decltype(make_filled_simdgroup_matrix<float, 8>(0.f)), simdgroup_float8x8>);
  static_assert(
      std::is_same_v<decltype(make_filled_simdgroup_matrix<half, 8>(half(0))), simdgroup_half8x8>);
}

}  // namespace
