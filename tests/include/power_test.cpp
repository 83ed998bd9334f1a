// pow and powr of float as written out in detail/power.h (so that lane loops vectorize them),
// against the C library's double pow of the same float arguments (within 1 ulp of double: far
// below a float ulp, and the same C99 special values). MSL's precise mode allows 16 ulp; the
// header promises 1, and that is what these tests hold it to: random arguments over every binade
// of x with exponents y from small integers to the range where the result over- or underflows,
// results near 1 (large y, x near 1), subnormal x and results, every special value pairing, and
// the vector and scalar code paths bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "test_util.h"

namespace {

using metalsim::msl_test::ulp_exact;
using metalsim::msl_test::uniform_real;

constexpr double kPromisedUlp = 1.0;  // MSL precise: 16
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

uint32_t bits_of(float x) { return __builtin_bit_cast(uint32_t, x); }

// A random finite float from its bit pattern (every binade equally likely), of either sign.
float random_finite_float() {
  for (;;) {
    const float x = __builtin_bit_cast(float, uint32_t(metalsim::msl_test::rng()()));
    if (std::isfinite(x)) return x;
  }
}

// Fails with the arguments when pow(x, y) is more than the promised ulps from the double pow, or
// differs from it in NaN-ness or (for zeros and infinities) in sign.
void expect_close(float x, float y) {
  const float got = metal::pow(x, y);
  const double want = std::pow(double(x), double(y));
  ASSERT_LE(ulp_exact(got, want), kPromisedUlp)
      << std::hexfloat << "pow(" << x << ", " << y << ") = " << got << ", want " << want;
  if (want == 0.0 || std::isinf(want)) {
    ASSERT_EQ(std::signbit(got), std::signbit(want))
        << std::hexfloat << "pow(" << x << ", " << y << ") = " << got;
  }
}

TEST(Power, RandomArgumentsOverTheRange) {
  for (int i = 0; i < 200000; ++i) {
    const float x = random_finite_float();
    // An exponent that keeps |x|^y near float's range: y log2|x| spread over [-160, 160].
    const double log2x = std::log2(std::fabs(double(x)));
    const float y = log2x == 0.0 ? uniform_real(-1e6f, 1e6f)
                                 : float(double(uniform_real(-160.0f, 160.0f)) / log2x);
    expect_close(std::fabs(x), y);
    expect_close(x, std::nearbyint(y));  // negative x needs an integer exponent
  }
}

TEST(Power, SmallIntegerAndFractionalExponents) {
  const float ys[] = {1, 2, 3, -1, -2, -3, 0.5f, -0.5f, 1.5f, 0.25f, 1.0f / 3, 7, 10, -10, 31};
  for (float y : ys)
    for (int i = 0; i < 20000; ++i) {
      const float x = uniform_real(-100.0f, 100.0f);
      expect_close(y == std::nearbyint(y) ? x : std::fabs(x), y);
    }
  // Results exactly representable come out exact.
  EXPECT_EQ(metal::pow(2.0f, 10.0f), 1024.0f);
  EXPECT_EQ(metal::pow(-2.0f, 3.0f), -8.0f);
  EXPECT_EQ(metal::pow(9.0f, 0.5f), 3.0f);
  EXPECT_EQ(metal::pow(10.0f, 2.0f), 100.0f);
  EXPECT_EQ(metal::pow(2.0f, -149.0f), std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(metal::pow(0.5f, 128.0f), 0x1p-128f);
}

TEST(Power, ResultsNearOneAndSubnormals) {
  for (int i = 0; i < 50000; ++i) {
    const float x = 1.0f + uniform_real(-1e-3f, 1e-3f);  // large y: t = y log2 x stays moderate
    expect_close(x, uniform_real(-50000.0f, 50000.0f));
    const float tiny = std::ldexp(uniform_real(1.0f, 2.0f), -140);  // a subnormal x
    expect_close(tiny, uniform_real(-0.9f, 1.05f));
  }
}

// Every pairing of special and ordinary values, against the C library's double pow, which
// follows C99's Annex F as the header does.
TEST(Power, SpecialValues) {
  const float values[] = {0.0f,    -0.0f,       kInf,
                          -kInf,   kNaN,        1.0f,
                          -1.0f,   0.5f,        -0.5f,
                          2.0f,    -2.0f,       3.0f,
                          -3.0f,   2.5f,        -2.5f,
                          0x1p23f, 0x1p24f + 2, -0x1p23f - 1,
                          1e30f,   -1e30f,      std::numeric_limits<float>::denorm_min()};
  for (float x : values)
    for (float y : values) expect_close(x, y);
}

TEST(Power, PowrIsNaNForNegativeX) {
  EXPECT_TRUE(std::isnan(metal::powr(-2.0f, 2.0f)));
  EXPECT_EQ(metal::powr(2.0f, 0.5f), metal::pow(2.0f, 0.5f));
}

// A loop over arrays (which the kernel compiler vectorizes: msl_types_kernel_compiler_test) and
// calls through a pointer (never vectorized) give the same bits, as fibers and lane loops must.
TEST(Power, LoopAndScalarCallsAgreeBitForBit) {
  constexpr int kN = 4096;
  std::vector<float> x(kN), y(kN), looped(kN, -1.0f);
  for (int i = 0; i < kN; ++i) {
    x[i] = i % 2 ? uniform_real(-10.0f, 10.0f) : random_finite_float();
    y[i] = i % 3 ? uniform_real(-8.0f, 8.0f) : std::nearbyint(uniform_real(-40.0f, 40.0f));
  }
  x[5] = -0.0f;
  x[6] = kInf;
  y[7] = kNaN;
  for (int i = 0; i < kN; ++i) looped[i] = metal::pow(x[i], y[i]);
  using Fn = float (*)(float, float);
  volatile Fn scalar = [](float a, float b) { return metal::pow(a, b); };
  for (int i = 0; i < kN; ++i)
    EXPECT_EQ(bits_of(looped[i]), bits_of(scalar(x[i], y[i])))
        << std::hexfloat << "pow(" << x[i] << ", " << y[i] << ")";
}

// Vectors are lane by lane; half computes in float and rounds once.
TEST(Power, VectorsAndHalf) {
  const metal::float4 x(0.5f, -3.0f, 1e6f, 2.0f), y(3.0f, 2.0f, -0.5f, 0.75f);
  const metal::float4 p = metal::pow(x, y);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(bits_of(p[i]), bits_of(metal::pow(x[i], y[i])));
  const metal::half h = metal::pow(metal::half(1.5f), metal::half(2.0f));
  EXPECT_EQ(float(h), 2.25f);
}

}  // namespace
