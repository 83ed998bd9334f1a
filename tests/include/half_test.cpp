// half: IEEE binary16 rounded after every operation; MSL's mixed-type rules; constants.
#include <gtest/gtest.h>

#include <type_traits>

#include "test_util.h"

using namespace metal;
using metalsim::msl_test::random_half;

namespace {

static_assert(std::is_same_v<decltype(half() + half()), half>);
static_assert(std::is_same_v<decltype(half() + 1), half>);          // half op int -> half
static_assert(std::is_same_v<decltype(half() * 1.0f), float>);      // half op float -> float
static_assert(std::is_same_v<decltype(true ? half(1) : 0), half>);  // cond ? h : 0 compiles
static_assert(half(1.5) + half(1.5) == half(3));                    // constexpr

TEST(Half, RoundsAfterEveryOperation) {
  half a = 2048, b = 1;
  // 2049 is not a half: a + b rounds to 2048 (ties to even), so (a + b) - a is 0; in float it is 1.
  EXPECT_EQ(float((a + b) - a), 0.0f);
  EXPECT_EQ((float(a) + float(b)) - float(a), 1.0f);
  half third = half(1) / half(3);
  EXPECT_EQ(float(third), 0.333251953125f);  // nearest binary16 to 1/3
}

TEST(Half, RandomExpressionsMatchPerOpRoundingModel) {
  // Model: each op computed in float, rounded to half. For +,-,*,/ of two halves float has more
  // than 2*11+2 significand bits, so rounding twice (exact -> float -> half) equals rounding once.
  for (int i = 0; i < 100000; ++i) {
    const half a = random_half(), b = random_half(), c = random_half();
    const half got = (a * b + c) / (a - c);
    const half model = half(float(half(float(half(float(a) * float(b))) + float(c))) /
                            float(half(float(a) - float(c))));
    const float g = float(got), m = float(model);
    ASSERT_TRUE((std::isnan(g) && std::isnan(m)) || g == m)
        << "a=" << float(a) << " b=" << float(b) << " c=" << float(c) << " got " << g << " model "
        << m;
  }
}

// Every operator on half and half4 against a model that computes each operation in float and
// rounds it to half (the correctly rounded result: float has more than 2*11+2 significand bits,
// as above). The operands come through volatile, so the compiler evaluates at run time what it
// could otherwise fold. A chain fails if an intermediate keeps float precision, as Clang's
// _Float16 does by default (kernels are compiled with -fexcess-precision=16).
TEST(Half, EveryOperatorRoundsAfterEachOperation) {
  auto round = [](float x) { return half(x); };
  auto same = [](half got, half model) {
    return (std::isnan(float(got)) && std::isnan(float(model))) || float(got) == float(model);
  };
  for (int i = 0; i < 20000; ++i) {
    volatile half va = random_half(), vb = random_half(), vc = random_half();
    const half a = va, b = vb, c = vc;
    const float fa = a, fb = b, fc = c;
    SCOPED_TRACE(::testing::Message() << "a=" << fa << " b=" << fb << " c=" << fc);
    ASSERT_TRUE(same(a + b - c, round(float(round(fa + fb)) - fc)));
    ASSERT_TRUE(same(a * b * c, round(float(round(fa * fb)) * fc)));
    ASSERT_TRUE(same(a / b / c, round(float(round(fa / fb)) / fc)));
    ASSERT_TRUE(same(-a * b + c, round(float(round(-fa * fb)) + fc)));
    ASSERT_TRUE(same(a * 3 - b, round(float(round(fa * 3.0f)) - fb)));  // half op int -> half
    half acc = a;
    acc += b;
    acc *= c;
    ASSERT_TRUE(same(acc, round(float(round(fa + fb)) * fc)));
    const half4 v = half4(a, b, c, a), w = half4(c, a, b, b);
    const half4 r = v * w + v;
    for (int k = 0; k < 4; ++k) {
      const float vk = v[k], wk = w[k];
      ASSERT_TRUE(same(r[k], round(float(round(vk * wk)) + vk))) << k;
    }
  }
}

TEST(Half, ConversionRoundsToNearestEven) {
  EXPECT_EQ(float(half(2049.0f)), 2048.0f);  // tie -> even
  EXPECT_EQ(float(half(2051.0f)), 2052.0f);  // tie -> even
  EXPECT_EQ(float(half(65520.0f)), INFINITY);
  EXPECT_EQ(float(half(0x1p-25f)), 0.0f);  // tie with 0 -> 0
}

TEST(Half, Constants) {
  EXPECT_EQ(float(HALF_MAX), 65504.0f);
  EXPECT_EQ(float(MAXHALF), 65504.0f);
  EXPECT_EQ(float(HALF_MIN), 0x1p-14f);
  EXPECT_EQ(float(HALF_EPSILON), 0x1p-10f);
  EXPECT_EQ(float(M_PI_H), float(half(3.14159265f)));
  EXPECT_EQ(float(numeric_limits<half>::max()), 65504.0f);
  EXPECT_EQ(float(numeric_limits<half>::denorm_min()), 0x1p-24f);
  EXPECT_EQ(float(numeric_limits<half>::epsilon()), 0x1p-10f);
  EXPECT_TRUE(std::isinf(float(numeric_limits<half>::infinity())));
  EXPECT_TRUE(std::isnan(float(numeric_limits<half>::quiet_NaN())));
  EXPECT_EQ(numeric_limits<half>::digits, 11);
}

}  // namespace
