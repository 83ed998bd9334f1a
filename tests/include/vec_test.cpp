// Vectors: construction, conversion, component access, swizzle reads and writes, element-wise
// operators against a per-component scalar model.
#include <gtest/gtest.h>

#include <type_traits>

#include "test_util.h"

using namespace metal;
using metalsim::msl_test::uniform_int;
using metalsim::msl_test::uniform_real;

namespace {

void expect_vec(const float4& v, float x, float y, float z, float w) {
  EXPECT_EQ(v.x, x);
  EXPECT_EQ(v.y, y);
  EXPECT_EQ(v.z, z);
  EXPECT_EQ(v.w, w);
}

TEST(Vec, ConstructionAndBroadcast) {
  float4 a = 0;  // broadcast from a scalar
  expect_vec(a, 0, 0, 0, 0);
  float2 f2(1, 2);
  expect_vec(float4(f2, 3, 4), 1, 2, 3, 4);
  expect_vec(float4(0, f2, 5), 0, 1, 2, 5);
  float4 b = {1, 2, 3, 4};
  float3 c(b.xy, 7);
  EXPECT_EQ(c.z, 7.0f);
  expect_vec(float4(b.wzyx), 4, 3, 2, 1);
  float4 z{};
  expect_vec(z, 0, 0, 0, 0);
}

TEST(Vec, ConversionsAreExplicitBetweenElementTypes) {
  static_assert(!std::is_convertible_v<half4, float4>);
  static_assert(std::is_constructible_v<float4, half4>);
  static_assert(std::is_convertible_v<packed_float3, float3>);
  static_assert(std::is_convertible_v<float3, packed_float3>);
  static_assert(std::is_convertible_v<float, float4>);
  float4 f(1.5f, -2.25f, 65504.0f, 1e6f);
  half4 h = half4(f);
  EXPECT_EQ(float(h.x), 1.5f);
  EXPECT_TRUE(std::isinf(float(h.w)));  // 1e6 overflows half
  int4 i = static_cast<int4>(f);
  EXPECT_EQ(i.y, -2);
  expect_vec(float4(h.xyz, 0), 1.5f, -2.25f, 65504.0f, 0);
  packed_float3 p = float3(1, 2, 3);
  float3 q = p;
  EXPECT_EQ(q.z, 3.0f);
}

TEST(Vec, ComponentNamesAndIndexShareStorage) {
  float4 v(1, 2, 3, 4);
  EXPECT_EQ(v.r, 1.0f);
  EXPECT_EQ(v.a, 4.0f);
  v[2] = 9;
  EXPECT_EQ(v.z, 9.0f);
  EXPECT_EQ(v.b, 9.0f);
  v.g = 7;
  EXPECT_EQ(v[1], 7.0f);
  float& ref = v.w;
  ref = 5;
  EXPECT_EQ(v.a, 5.0f);
}

TEST(Vec, SwizzleReads) {
  float4 v(1, 2, 3, 4);
  float2 a = v.xy, b = v.wx;
  EXPECT_EQ(a.y, 2.0f);
  EXPECT_EQ(b.x, 4.0f);
  expect_vec(v.xxyy, 1, 1, 2, 2);
  expect_vec(v.abgr, 4, 3, 2, 1);
  float3 c = v.zyx;
  EXPECT_EQ(c.x, 3.0f);
  float2 p(5, 6);
  expect_vec(p.yxyx, 6, 5, 6, 5);
  float3 t(1, 2, 3);
  expect_vec(t.zzzx, 3, 3, 3, 1);
}

TEST(Vec, SwizzleWritesTouchOnlyNamedComponents) {
  float4 v(1, 2, 3, 4);
  v.xy = float2(9, 8);
  expect_vec(v, 9, 8, 3, 4);
  v.wz = float2(7, 6);
  expect_vec(v, 9, 8, 6, 7);
  v.xy = v.yx;  // reads before writing
  expect_vec(v, 8, 9, 6, 7);
  const float4 src(10, 20, 30, 40);
  v.xz = src.xz;  // same swizzle type, const source: only x and z change
  expect_vec(v, 10, 9, 30, 7);
  v.yw = 0.0f;
  expect_vec(v, 10, 0, 30, 0);
  v.rgb = float3(1, 2, 3);
  expect_vec(v, 1, 2, 3, 0);
  v.xy += 1.0f;
  expect_vec(v, 2, 3, 3, 0);
  v.zw *= float2(2, 5);
  expect_vec(v, 2, 3, 6, 0);
  static_assert(!std::is_assignable_v<decltype((v.xx)), float2>, "repeated swizzle is read-only");
  static_assert(std::is_assignable_v<decltype((v.xy)), float2>);
}

TEST(Vec, PackedVectorsSwizzle) {
  packed_float3 p(1, 2, 3);
  p.xz = float2(5, 6);
  EXPECT_EQ(p.x, 5.0f);
  EXPECT_EQ(p.y, 2.0f);
  EXPECT_EQ(p[2], 6.0f);
  float3 q = p.zyx;
  EXPECT_EQ(q.x, 6.0f);
}

// Each operator against the scalar operator applied per component, on random inputs.
TEST(Vec, ArithmeticMatchesPerComponentModel) {
  for (int iter = 0; iter < 1000; ++iter) {
    float4 a(uniform_real(-10, 10), uniform_real(-10, 10), uniform_real(-10, 10),
             uniform_real(-10, 10));
    float4 b(uniform_real(1, 10), uniform_real(1, 10), uniform_real(1, 10), uniform_real(1, 10));
    const float s = uniform_real(-3, 3);
    const float4 sum = a + b, diff = a - b, prod = a * s, quo = s / b, neg = -a;
    const bool4 lt = a < b;
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(sum[i], a[i] + b[i]) << "lane " << i;
      ASSERT_EQ(diff[i], a[i] - b[i]) << "lane " << i;
      ASSERT_EQ(prod[i], a[i] * s) << "lane " << i;
      ASSERT_EQ(quo[i], s / b[i]) << "lane " << i;
      ASSERT_EQ(neg[i], -a[i]) << "lane " << i;
      ASSERT_EQ(lt[i], a[i] < b[i]) << "lane " << i;
    }
  }
}

TEST(Vec, IntegerOperatorsMatchPerComponentModel) {
  for (int iter = 0; iter < 1000; ++iter) {
    int4 a(uniform_int(-1000, 1000), uniform_int(-1000, 1000), uniform_int(-1000, 1000),
           uniform_int(-1000, 1000));
    int4 b(uniform_int(1, 50), uniform_int(1, 50), uniform_int(1, 50), uniform_int(1, 50));
    const int4 m = a % b, band = a & b, bor = a | b, bx = a ^ b, shl = b << 2, shr = a >> 1,
               inv = ~a;
    const bool4 eq = a == a, ne = a != b;
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(m[i], a[i] % b[i]);
      ASSERT_EQ(band[i], a[i] & b[i]);
      ASSERT_EQ(bor[i], a[i] | b[i]);
      ASSERT_EQ(bx[i], a[i] ^ b[i]);
      ASSERT_EQ(shl[i], b[i] << 2);
      ASSERT_EQ(shr[i], a[i] >> 1);
      ASSERT_EQ(inv[i], ~a[i]);
      ASSERT_TRUE(eq[i]);
      ASSERT_EQ(ne[i], a[i] != b[i]);
    }
  }
}

TEST(Vec, NarrowElementsWrapAndHalfRounds) {
  uchar4 u(250, 1, 2, 3);
  u += uchar(10);
  EXPECT_EQ(u.x, 4);  // 260 wraps to 4
  half2 h(2048, 1);
  half2 r = (h + h.y) - h.x;
  EXPECT_EQ(float(r.x), 0.0f);  // 2049 rounds to 2048 in half
  short2 s(32767, 0);
  s = s + short(1);
  EXPECT_EQ(s.x, -32768);
}

TEST(Vec, CompoundAndIncrement) {
  int3 v(1, 2, 3);
  v += 1;
  v *= int3(2, 2, 2);
  ++v;
  int3 old = v++;
  EXPECT_EQ(old.x, 5);
  EXPECT_EQ(v.z, 10);
  bool3 n = !bool3(true, false, true);
  EXPECT_FALSE(n.x);
  EXPECT_TRUE(n.y);
}

TEST(Vec, AsTypeReinterpretsBits) {
  EXPECT_EQ(as_type<uint>(1.0f), 0x3f800000u);
  const uint2 u = as_type<uint2>(float2(1.0f, -2.0f));
  EXPECT_EQ(u.y, 0xc0000000u);
  EXPECT_EQ(as_type<ushort>(half(1.0)), 0x3c00);
  const half2 h = as_type<half2>(0x3c003c00u);
  EXPECT_EQ(float(h.y), 1.0f);
  EXPECT_EQ(as_type<float4>(as_type<uint4>(float4(1, 2, 3, 4))).w, 4.0f);
}

}  // namespace
