// What MLX's kernels need from the library beyond the families' tests: metal::array
// (<metal_array>), metal::uniform (<metal_uniform>), a braced vector shorter than its type, Apple's
// _disjunction, remove_addrspace_t, and assigning a class convertible to bool to a bfloat. Against
// scalar models on random values.
#include <gtest/gtest.h>

#include <type_traits>

#include "test_util.h"

using namespace metal;
using metalsim::msl_test::uniform_int;
using metalsim::msl_test::uniform_real;

namespace {

// MLX's DivMod returns `metal::array<T, 2>` from a braced list.
template <class T>
metal::array<T, 2> div_mod(T x, T y) {
  return {x / y, x % y};
}

TEST(MetalArray, ReturnedFromABracedListAndIndexed) {
  for (int i = 0; i < 1000; ++i) {
    const int x = uniform_int(-100000, 100000), y = uniform_int(1, 300) * (i % 2 ? 1 : -1);
    const metal::array<int, 2> qr = div_mod(x, y);
    ASSERT_EQ(qr.size(), 2u);
    ASSERT_EQ(qr[0], x / y);
    ASSERT_EQ(qr[1], x % y);
  }
  static_assert(sizeof(metal::array<float, 5>) == 5 * sizeof(float));
  static_assert(std::is_trivially_copyable_v<metal::array<float, 5>>);
}

TEST(MetalUniform, ArithmeticBetweenUniformsStaysUniform) {
  for (int i = 0; i < 1000; ++i) {
    const int a = uniform_int(-5000, 5000), b = uniform_int(1, 97);
    const uniform<int> ua = make_uniform(a), ub = make_uniform(b);
    static_assert(std::is_same_v<decltype(ua / ub), uniform<int>>);
    static_assert(std::is_same_v<decltype(ua * 3), int>);  // with a plain value: the plain type
    const uniform<int> q = ua / ub, r = ua % ub, s = ua - ub * make_uniform(2);
    ASSERT_EQ(int(q), a / b);
    ASSERT_EQ(int(r), a % b);
    ASSERT_EQ(int(s), a - b * 2);
    ASSERT_EQ(ua * 3 + 1, a * 3 + 1);
    ASSERT_EQ(ua < ub, a < b);
  }
  constexpr const uniform<int> stride = make_uniform(32);  // constexpr, as gemv.h declares it
  static_assert(int(stride) == 32);
}

TEST(Vec, ShortBracedListZeroesTheRest) {
  for (int i = 0; i < 100; ++i) {
    const uint x = uint(uniform_int(0, 1 << 30)), y = uint(uniform_int(0, 1 << 30));
    uint4 ks = {x, y, x ^ y};
    ASSERT_EQ(ks.x, x);
    ASSERT_EQ(ks.y, y);
    ASSERT_EQ(ks.z, x ^ y);
    ASSERT_EQ(ks.w, 0u);
    const float f = uniform_real(-3, 3);
    float3 v = {f, -f};
    ASSERT_EQ(v.x, f);
    ASSERT_EQ(v.y, -f);
    ASSERT_EQ(v.z, 0.0f);
  }
}

// Apple's internal trait names (`#pragma METAL internals`), MLX's atomic.h.
template <class T>
constexpr bool is_32bit_int = _disjunction<is_same<T, int>, is_same<T, uint>>::value;
static_assert(is_32bit_int<int> && is_32bit_int<uint> && !is_32bit_int<float>);
static_assert(_conjunction<is_same<int, int>, _negation<is_same<int, float>>>::value);
// Address spaces are erased: removing one is the identity.
static_assert(std::is_same_v<remove_addrspace_t<const float*>, const float*>);

struct AlwaysTrue {
  char x;
  constexpr operator bool() const { return true; }
};

TEST(Bfloat, AssignedFromAClassConvertibleToBool) {
  bfloat b = bfloat(uniform_real(-3, 3));
  b = AlwaysTrue{};
  EXPECT_EQ(float(b), 1.0f);
  // Not a converting constructor: two such classes multiplied stay int arithmetic.
  static_assert(!std::is_convertible_v<AlwaysTrue, bfloat>);
  static_assert(std::is_same_v<decltype(AlwaysTrue{} * AlwaysTrue{}), int>);
}

}  // namespace
