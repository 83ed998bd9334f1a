// Common functions (clamp, mix, saturate, sign, smoothstep, step, max/min families) against
// direct formulas. Exact equality where the implementation is the formula itself; smoothstep and
// mix on half compute in float or half per op and are compared with the same op order.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_util.h"

using namespace metal;
using metalsim::msl_test::uniform_real;

namespace {

TEST(Common, ScalarModels) {
  for (int i = 0; i < 5000; ++i) {
    const float x = uniform_real(-3, 3), a = uniform_real(-1, 0), b = uniform_real(0, 1),
                t = uniform_real(0, 1);
    ASSERT_EQ(clamp(x, a, b), std::min(std::max(x, a), b));
    ASSERT_EQ(mix(a, b, t), a + (b - a) * t);
    ASSERT_EQ(saturate(x), std::min(std::max(x, 0.0f), 1.0f));
    ASSERT_EQ(step(a, x), x < a ? 0.0f : 1.0f);
    const float u = std::clamp((x - a) / (b - a), 0.0f, 1.0f);
    ASSERT_EQ(smoothstep(a, b, x), u * u * (3 - 2 * u));
    ASSERT_EQ(max(x, a), std::fmax(x, a));
    ASSERT_EQ(min(x, a), std::fmin(x, a));
    ASSERT_EQ(max3(x, a, b), std::max({x, a, b}));
    ASSERT_EQ(min3(x, a, b), std::min({x, a, b}));
  }
}

TEST(Common, Sign) {
  EXPECT_EQ(sign(3.0f), 1.0f);
  EXPECT_EQ(sign(-0.5f), -1.0f);
  EXPECT_TRUE(std::signbit(sign(-0.0f)));
  EXPECT_EQ(sign(NAN), 0.0f);
  EXPECT_EQ(float(sign(half(-2))), -1.0f);
}

TEST(Common, VectorsWithScalarArguments) {
  const float4 v(-1, 0.25f, 0.5f, 2);
  const float4 c = clamp(v, 0.0f, 1.0f);
  EXPECT_EQ(c.x, 0.0f);
  EXPECT_EQ(c.w, 1.0f);
  const float4 m = mix(float4(0), float4(10), 0.5f);
  EXPECT_EQ(m.z, 5.0f);
  const half2 h = saturate(half2(-1, 0.5));
  EXPECT_EQ(float(h.y), 0.5f);
  const int3 i = clamp(int3(-5, 5, 50), 0, 10);
  EXPECT_EQ(i.x, 0);
  EXPECT_EQ(i.z, 10);
  EXPECT_EQ(max(uint2(1, 9), 4u).x, 4u);
  EXPECT_EQ(median3(3, 1, 2), 2);
  EXPECT_EQ(float(max(half(1), half(2))), 2.0f);
  EXPECT_EQ(step(float2(0.5f), float2(0, 1)).y, 1.0f);
}

}  // namespace
