// Relational functions: classification, all/any, select.
#include <gtest/gtest.h>

#include "test_util.h"

using namespace metal;

namespace {

TEST(Relational, Classification) {
  const float4 v(1.0f, INFINITY, NAN, 1e-40f);
  EXPECT_TRUE(all(isfinite(v) == bool4(true, false, false, true)));
  EXPECT_TRUE(all(isinf(v) == bool4(false, true, false, false)));
  EXPECT_TRUE(all(isnan(v) == bool4(false, false, true, false)));
  EXPECT_TRUE(all(isnormal(v) == bool4(true, false, false, false)));
  EXPECT_TRUE(signbit(-0.0f));
  EXPECT_FALSE(isnormal(half(0x1p-15f)));  // subnormal in half, normal in float
  EXPECT_TRUE(isnormal(half(0x1p-14f)));
  EXPECT_TRUE(isunordered(NAN, 1.0f));
  EXPECT_TRUE(isordered(1.0f, 2.0f));
  EXPECT_TRUE(isnan(half(NAN)));
}

TEST(Relational, AllAny) {
  EXPECT_TRUE(all(bool3(true, true, true)));
  EXPECT_FALSE(all(bool3(true, false, true)));
  EXPECT_TRUE(any(bool2(false, true)));
  EXPECT_FALSE(any(bool4(false)));
  EXPECT_TRUE(any(float4(1, 2, 3, 4) > 3.5f));
}

TEST(Relational, Select) {
  EXPECT_EQ(select(1.0f, 2.0f, true), 2.0f);
  const float4 r = select(float4(0), float4(1, 2, 3, 4), bool4(true, false, true, false));
  EXPECT_EQ(r.x, 1.0f);
  EXPECT_EQ(r.y, 0.0f);
  EXPECT_EQ(select(int2(5, 6), 9, false).y, 6);
  EXPECT_EQ(select(int2(5, 6), 9, bool2(false, true)).y, 9);
}

}  // namespace
