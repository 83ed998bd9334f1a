// Integer functions against models computed in 64-bit (or 128-bit) arithmetic, on random inputs.
#include <gtest/gtest.h>

#include <limits>

#include "test_util.h"

using namespace metal;

namespace {

template <class T>
T random_of() {
  return T(metalsim::msl_test::rng()() ^ (uint64_t(metalsim::msl_test::rng()()) << 32));
}

template <class T>
void check_family() {
  using L = std::numeric_limits<T>;
  constexpr int w = int(sizeof(T) * 8);
  for (int i = 0; i < 3000; ++i) {
    const T x = random_of<T>(), y = random_of<T>(), z = random_of<T>();
    __extension__ typedef __int128 I;  // holds x + y and x - y for every T
    __extension__ typedef unsigned __int128 UI;
    using W = std::conditional_t<std::is_signed_v<T>, I, UI>;  // holds x * y + z
    const I sum = I(x) + I(y), diff = I(x) - I(y);
    ASSERT_EQ(addsat(x, y), T(sum > I(L::max()) ? L::max() : sum < I(L::min()) ? L::min() : sum));
    ASSERT_EQ(subsat(x, y), T(diff > I(L::max()) ? L::max() : diff < I(L::min()) ? L::min() : diff));
    ASSERT_EQ(hadd(x, y), T(sum >> 1));
    ASSERT_EQ(rhadd(x, y), T((sum + 1) >> 1));
    ASSERT_EQ(absdiff(x, y), T(diff < 0 ? -diff : diff));
    ASSERT_EQ(mulhi(x, y), T((W(x) * W(y)) >> w));
    const W mad = W(x) * W(y) + W(z);
    ASSERT_EQ(madsat(x, y, z), T(mad > W(L::max()) ? L::max() : mad < W(L::min()) ? L::min() : mad));
    int pc = 0, lz = 0, tz = 0;
    using U = std::make_unsigned_t<T>;
    const U u = U(x);
    for (int b = 0; b < w; ++b) pc += (u >> b) & 1;
    while (lz < w && !((u >> (w - 1 - lz)) & 1)) ++lz;
    while (tz < w && !((u >> tz) & 1)) ++tz;
    ASSERT_EQ(popcount(x), T(pc));
    ASSERT_EQ(clz(x), T(lz));
    ASSERT_EQ(ctz(x), T(tz));
    U rev = 0;
    for (int b = 0; b < w; ++b) rev = U(rev | (((u >> b) & 1u) ? U(U(1) << (w - 1 - b)) : U(0)));
    ASSERT_EQ(reverse_bits(x), T(rev));
    const int s = int(U(y) % unsigned(w));
    ASSERT_EQ(rotate(x, y), T(s ? U(U(u << s) | U(u >> (w - s))) : u));
    ASSERT_EQ(max(x, y), x < y ? y : x);
    ASSERT_EQ(abs(x), T(x < 0 ? U(-U(x)) : U(x)));
  }
}

TEST(Integer, FamilyMatchesWideModel) {
  check_family<char>();
  check_family<uchar>();
  check_family<short>();
  check_family<ushort>();
  check_family<int>();
  check_family<uint>();
  check_family<long>();
  check_family<ulong>();
}

TEST(Integer, BitFields) {
  EXPECT_EQ(extract_bits(0xabcdu, 4u, 8u), 0xbcu);
  EXPECT_EQ(extract_bits(int(0x00000f00), 8u, 4u), -1);  // signed: sign-extends
  EXPECT_EQ(extract_bits(0xffu, 0u, 0u), 0u);
  EXPECT_EQ(insert_bits(0xffffu, 0x0u, 4u, 8u), 0xf00fu);
  EXPECT_EQ(insert_bits(0u, 0xffu, 28u, 4u), 0xf0000000u);
  EXPECT_EQ(extract_bits(uint2(0xf0u, 0x0fu), 4u, 4u).x, 0xfu);
}

TEST(Integer, TwentyFourBit) {
  EXPECT_EQ(mul24(0x00ffffffu, 2u), 0x01fffffeu);
  EXPECT_EQ(mul24(0x01000002u, 3u), 6u);  // the upper 8 bits are ignored
  EXPECT_EQ(mul24(-2, 3), -6);
  EXPECT_EQ(mad24(4, 5, 6), 26);
}

TEST(Integer, Vectors) {
  const int4 v(-3, 0, 7, -8);
  EXPECT_EQ(abs(v).x, 3);
  EXPECT_EQ(clz(uint2(1u, 0u)).y, 32u);
  EXPECT_EQ(popcount(ushort2(0xffff, 1)).x, 16);
  EXPECT_EQ(addsat(char2(120, -120), char(10)).x, 127);
  EXPECT_EQ(min3(int2(1, 5), int2(2, 4), 3).y, 3);
}

}  // namespace
