// Math functions against the C library in double (the scalar model), on random inputs from a
// fixed seed. Tolerances: float results must be within 2 ulp of the double result rounded to
// float (glibc's float functions are within 1 ulp, MSL's precise mode allows up to 4); half results
// within 1 ulp of half (the float result is rounded once more to half: 0.5 ulp plus float's error).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "test_util.h"

using namespace metal;
using metalsim::msl_test::ulp_float;
using metalsim::msl_test::ulp_half;
using metalsim::msl_test::uniform_real;

namespace {

struct Unary {
  const char* name;
  float (*f)(float);
  half (*h)(half);
  double (*model)(double);
  float lo, hi;
};

#define UNARY(fn, model, lo, hi)                                                                  \
  Unary {                                                                                         \
    #fn, [](float x) { return metal::fn(x); }, [](half x) { return metal::fn(x); }, model, lo, hi \
  }

double d_sinpi(double x) { return std::sin(M_PI * std::fmod(x, 2.0)); }
double d_cospi(double x) { return std::cos(M_PI * std::fmod(x, 2.0)); }
double d_tanpi(double x) { return std::tan(M_PI * std::fmod(x, 1.0)); }
double d_exp10(double x) { return std::pow(10.0, x); }
double d_rsqrt(double x) { return 1.0 / std::sqrt(x); }
double d_fract(double x) { return std::fmin(x - std::floor(x), 0x1.fffffep-1); }

const Unary kUnary[] = {
    UNARY(
        sin, [](double x) { return std::sin(x); }, -10, 10),
    UNARY(
        cos, [](double x) { return std::cos(x); }, -10, 10),
    UNARY(
        tan, [](double x) { return std::tan(x); }, -1.5f, 1.5f),
    UNARY(
        asin, [](double x) { return std::asin(x); }, -1, 1),
    UNARY(
        acos, [](double x) { return std::acos(x); }, -1, 1),
    UNARY(
        atan, [](double x) { return std::atan(x); }, -100, 100),
    UNARY(
        sinh, [](double x) { return std::sinh(x); }, -8, 8),
    UNARY(
        cosh, [](double x) { return std::cosh(x); }, -8, 8),
    UNARY(
        tanh, [](double x) { return std::tanh(x); }, -8, 8),
    UNARY(
        asinh, [](double x) { return std::asinh(x); }, -100, 100),
    UNARY(
        acosh, [](double x) { return std::acosh(x); }, 1, 100),
    UNARY(
        atanh, [](double x) { return std::atanh(x); }, -0.99f, 0.99f),
    UNARY(
        exp, [](double x) { return std::exp(x); }, -10, 10),
    UNARY(
        exp2, [](double x) { return std::exp2(x); }, -14, 15),
    UNARY(exp10, d_exp10, -4, 4),
    UNARY(
        log, [](double x) { return std::log(x); }, 0.001f, 1000),
    UNARY(
        log2, [](double x) { return std::log2(x); }, 0.001f, 1000),
    UNARY(
        log10, [](double x) { return std::log10(x); }, 0.001f, 1000),
    UNARY(
        sqrt, [](double x) { return std::sqrt(x); }, 0, 1000),
    UNARY(rsqrt, d_rsqrt, 0.01f, 1000),
    UNARY(sinpi, d_sinpi, -4, 4),
    UNARY(cospi, d_cospi, -4, 4),
    UNARY(tanpi, d_tanpi, -0.45f, 0.45f),
    UNARY(
        ceil, [](double x) { return std::ceil(x); }, -100, 100),
    UNARY(
        floor, [](double x) { return std::floor(x); }, -100, 100),
    UNARY(
        trunc, [](double x) { return std::trunc(x); }, -100, 100),
    UNARY(
        round, [](double x) { return std::round(x); }, -100, 100),
    UNARY(
        rint, [](double x) { return std::nearbyint(x); }, -100, 100),
    UNARY(fract, d_fract, -100, 100),
    UNARY(
        fabs, [](double x) { return std::fabs(x); }, -100, 100),
    UNARY(
        abs, [](double x) { return std::fabs(x); }, -100, 100),
};

TEST(Math, UnaryFloatWithin2UlpOfModel) {
  for (const Unary& u : kUnary) {
    for (int i = 0; i < 2000; ++i) {
      const float x = uniform_real(u.lo, u.hi);
      const float want = float(u.model(double(x)));
      ASSERT_LE(ulp_float(u.f(x), want), 2.0)
          << u.name << "(" << x << ") = " << u.f(x) << ", want " << want;
    }
  }
}

TEST(Math, UnaryHalfWithin1UlpOfModel) {
  for (const Unary& u : kUnary) {
    for (int i = 0; i < 500; ++i) {
      const half x = half(uniform_real(u.lo, u.hi));
      const double m = u.model(double(float(x)));
      if (!(std::fabs(m) <= 65504.0)) continue;  // outside half's range
      const float want = float(half(float(m)));
      const float got = float(u.h(x));
      ASSERT_LE(ulp_half(got, want), 1.0)
          << u.name << "(" << float(x) << ") = " << got << ", want " << want;
    }
  }
}

TEST(Math, VectorsApplyPerComponent) {
  const float4 x(0.1f, 0.5f, 1.5f, 2.5f);
  const float4 s = sin(x), p = pow(x, 2.0f), f = fma(x, x, x);
  const half4 h = exp(half4(x));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(s[i], metal::sin(x[i]));
    EXPECT_EQ(p[i], metal::pow(x[i], 2.0f));
    EXPECT_EQ(f[i], metal::fma(x[i], x[i], x[i]));
    EXPECT_EQ(float(h[i]), float(metal::exp(half(x[i]))));
  }
  EXPECT_EQ(sqrt(x.xy).y, metal::sqrt(0.5f));  // swizzles are accepted
}

TEST(Math, BinaryAndTernary) {
  for (int i = 0; i < 2000; ++i) {
    const float x = uniform_real(-50, 50), y = uniform_real(-50, 50), z = uniform_real(-50, 50);
    ASSERT_EQ(atan2(x, y), std::atan2(x, y));
    ASSERT_EQ(fmod(x, y), std::fmod(x, y));
    ASSERT_EQ(fmin(x, y), std::fmin(x, y));
    ASSERT_EQ(fmax(x, y), std::fmax(x, y));
    ASSERT_EQ(fdim(x, y), std::fdim(x, y));
    ASSERT_EQ(copysign(x, y), std::copysign(x, y));
    ASSERT_EQ(fma(x, y, z), std::fma(x, y, z));
    ASSERT_EQ(fmax3(x, y, z), std::fmax(std::fmax(x, y), z));
    ASSERT_EQ(fmin3(x, y, z), std::fmin(std::fmin(x, y), z));
    float sorted[] = {x, y, z};
    std::sort(sorted, sorted + 3);
    ASSERT_EQ(fmedian3(x, y, z), sorted[1]);
    ASSERT_EQ(divide(x, y), x / y);
    ASSERT_LE(
        ulp_float(pow(std::fabs(x), y / 10), float(std::pow(double(std::fabs(x)), double(y / 10)))),
        2.0);
  }
  EXPECT_TRUE(std::isnan(powr(-1.0f, 2.0f)));
  EXPECT_EQ(fmax(NAN, 1.0f), 1.0f);
  EXPECT_EQ(nextafter(1.0f, 2.0f), 1.0f + FLT_EPSILON);
}

TEST(Math, DecompositionFunctions) {
  int e = 0;
  EXPECT_EQ(frexp(48.0f, e), 0.75f);
  EXPECT_EQ(e, 6);
  int2 e2;
  const float2 m2 = frexp(float2(1.0f, 8.0f), e2);
  EXPECT_EQ(m2.y, 0.5f);
  EXPECT_EQ(e2.y, 4);
  EXPECT_EQ(ldexp(0.75f, 6), 48.0f);
  EXPECT_EQ(ldexp(float2(1, 1), int2(2, 3)).y, 8.0f);
  EXPECT_EQ(ilogb(48.0f), 5);
  float ip = 0;
  EXPECT_EQ(modf(3.25f, ip), 0.25f);
  EXPECT_EQ(ip, 3.0f);
  float c = 0;
  EXPECT_EQ(sincos(0.5f, c), std::sin(0.5f));
  EXPECT_EQ(c, std::cos(0.5f));
  EXPECT_EQ(fract(-0.25f), 0.75f);
  EXPECT_LT(fract(-1e-9f), 1.0f);  // clamped below 1
}

TEST(Math, FastAndPreciseNamespaces) {
  EXPECT_EQ(fast::sin(1.0f), metal::sin(1.0f));
  EXPECT_EQ(precise::exp(half(1)), metal::exp(half(1)));
  EXPECT_EQ(fast::normalize(float2(3, 4)).x, 0.6f);
  EXPECT_EQ(precise::clamp(2.0f, 0.0f, 1.0f), 1.0f);
  EXPECT_EQ(sqrt(4), 2.0f);  // integer arguments are taken as float
}

TEST(Math, Constants) {
  EXPECT_EQ(M_PI_F, float(M_PI));
  EXPECT_EQ(M_PI_2_F, float(M_PI / 2));
  EXPECT_EQ(M_E_F, float(M_E));
  EXPECT_EQ(M_LOG2E_F, float(M_LOG2E));
  EXPECT_EQ(M_SQRT2_F, float(M_SQRT2));
  EXPECT_EQ(M_1_PI_F, float(M_1_PI));
  EXPECT_EQ(MAXFLOAT, FLT_MAX);
  EXPECT_TRUE(std::isinf(INFINITY));
  EXPECT_TRUE(std::isnan(NAN));
}

}  // namespace
