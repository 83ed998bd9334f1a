// Geometric functions against formulas in double. Tolerance 1e-5 relative: the implementation
// accumulates in float (at most N roundings of a sum of N products).
#include <gtest/gtest.h>

#include "test_util.h"

using namespace metal;
using metalsim::msl_test::uniform_real;

namespace {

double ddot(const float3& a, const float3& b) {
  return double(a.x) * double(b.x) + double(a.y) * double(b.y) + double(a.z) * double(b.z);
}

TEST(Geometric, MatchesDoubleModel) {
  for (int i = 0; i < 2000; ++i) {
    const float3 a(uniform_real(-5, 5), uniform_real(-5, 5), uniform_real(-5, 5));
    const float3 b(uniform_real(-5, 5), uniform_real(-5, 5), uniform_real(-5, 5));
    const double tol = 1e-5 * (1 + ddot(a, a) + ddot(b, b));
    ASSERT_NEAR(dot(a, b), ddot(a, b), tol);
    ASSERT_NEAR(length_squared(a), ddot(a, a), tol);
    ASSERT_NEAR(length(a), std::sqrt(ddot(a, a)), 1e-5 * (1 + double(length(a))));
    const float3 d = a - b;
    ASSERT_NEAR(distance(a, b), std::sqrt(ddot(d, d)), 1e-5 * (1 + double(length(d))));
    ASSERT_NEAR(distance_squared(a, b), ddot(d, d), tol);
    const float3 c = cross(a, b);
    ASSERT_NEAR(dot(c, a), 0.0, 1e-4 * (1 + ddot(a, a) * std::sqrt(ddot(b, b))));
    ASSERT_NEAR(length(normalize(a)), 1.0, 1e-6);
    const float3 r = reflect(a, normalize(b));
    ASSERT_NEAR(length(r), length(a), 1e-4 * (1 + double(length(a))));
  }
}

// dot of two scalars, as Apple's compiler accepts it: the product, rounded once.
TEST(Geometric, ScalarDotIsTheProduct) {
  for (int i = 0; i < 200; ++i) {
    const float a = uniform_real(-5, 5), b = uniform_real(-5, 5);
    EXPECT_EQ(dot(a, b), a * b);
    const half ha = half(a), hb = half(b);
    EXPECT_EQ(float(dot(ha, hb)), float(half(float(ha) * float(hb))));
  }
}

TEST(Geometric, CrossAndFaceforward) {
  const float3 c = cross(float3(1, 0, 0), float3(0, 1, 0));
  EXPECT_EQ(c.z, 1.0f);
  EXPECT_EQ(faceforward(float2(1, 0), float2(1, 0), float2(1, 0)).x, -1.0f);
  EXPECT_EQ(faceforward(float2(1, 0), float2(-1, 0), float2(1, 0)).x, 1.0f);
}

TEST(Geometric, Refract) {
  const float3 i = normalize(float3(1, -1, 0)), n(0, 1, 0);
  const float3 same = refract(i, n, 1.0f);  // eta 1: no bend
  EXPECT_NEAR(same.x, i.x, 1e-6);
  EXPECT_NEAR(same.y, i.y, 1e-6);
  const float3 tir = refract(i, n, 2.0f);  // total internal reflection
  EXPECT_EQ(length(tir), 0.0f);
}

TEST(Geometric, HalfVectors) {
  const half3 a(1, 2, 2);
  EXPECT_EQ(float(length(a)), 3.0f);
  EXPECT_EQ(float(dot(a, a)), 9.0f);
  EXPECT_NEAR(float(normalize(a).y), 2.0f / 3.0f, 1e-3);
}

}  // namespace
