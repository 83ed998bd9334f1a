// bfloat: round-to-nearest-even from float, arithmetic through float, mixed-type rules.
#include <gtest/gtest.h>

#include <type_traits>

#include "test_util.h"

using namespace metal;

namespace {

static_assert(sizeof(bfloat) == 2 && std::is_trivially_copyable_v<bfloat>);
static_assert(std::is_same_v<decltype(bfloat() + bfloat()), bfloat>);
static_assert(std::is_same_v<decltype(bfloat() * 2), bfloat>);
static_assert(std::is_same_v<decltype(bfloat() * 2.0f), float>);

float from_bits(uint32_t u) { return __builtin_bit_cast(float, u); }

TEST(Bfloat, RoundsToNearestEven) {
  EXPECT_EQ(bfloat(from_bits(0x3f808000u)).bits, 0x3f80);  // tie, even below: down
  EXPECT_EQ(bfloat(from_bits(0x3f818000u)).bits, 0x3f82);  // tie, odd below: up
  EXPECT_EQ(bfloat(from_bits(0x3f808001u)).bits, 0x3f81);  // above tie: up
  EXPECT_EQ(bfloat(from_bits(0x3f807fffu)).bits, 0x3f80);  // below tie: down
  EXPECT_EQ(bfloat(from_bits(0x7f7fffffu)).bits, 0x7f80);  // FLT_MAX rounds to infinity
  EXPECT_TRUE(std::isnan(float(bfloat(NAN))));
  EXPECT_EQ(bfloat(-0.0f).bits, 0x8000);
}

TEST(Bfloat, RandomConversionMatchesModel) {
  // Model: the nearest bfloat by distance, ties to the even pattern.
  for (int i = 0; i < 100000; ++i) {
    const uint32_t u = metalsim::msl_test::rng()() & 0x7f7fffffu;  // finite, positive
    const float f = from_bits(u);
    const float lo = from_bits(u & 0xffff0000u), hi = from_bits((u & 0xffff0000u) + 0x10000u);
    // Above BFLOAT_MAX the next step up is 2^128, which rounds to infinity.
    const double vhi = std::isinf(hi) ? std::ldexp(1.0, 128) : double(hi);
    const double dlo = double(f) - double(lo), dhi = vhi - double(f);
    const float want = dlo < dhi ? lo : dhi < dlo ? hi : (((u >> 16) & 1u) ? hi : lo);
    ASSERT_EQ(float(bfloat(f)), want) << std::hexfloat << f;
  }
}

TEST(Bfloat, ArithmeticRoundsEachOperation) {
  bfloat a = 256.0f, b = 1.0f;
  EXPECT_EQ(float((a + b) - a), 0.0f);  // 257 is not a bfloat (8 significand bits)
  EXPECT_EQ(float(BFLOAT_MAX), from_bits(0x7f7f0000u));
  EXPECT_EQ(float(numeric_limits<bfloat>::epsilon()), 0x1p-7f);
}

}  // namespace
