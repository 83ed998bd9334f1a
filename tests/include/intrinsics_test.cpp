// Apple's compiler intrinsics (detail/metal_intrinsics.h) against the library functions they
// stand for, and a program's own bfloat overloads in namespace metal (as MLX's bf16_math.h
// defines them) next to ours: no redefinition, and theirs is the one called.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace {
int own_calls = 0;
}  // namespace

// A program's own bfloat functions, written the way third-party MSL extends the library. Our
// headers declare the same signatures as templates; these are distinct functions.
namespace metal {
METAL_FUNC bfloat exp(bfloat x) {
  ++own_calls;
  return bfloat(__metal_exp(float(x), __METAL_MAYBE_FAST_MATH__));
}
METAL_FUNC bfloat abs(bfloat x) {
  ++own_calls;
  return bfloat(__metal_fabs(float(x), __METAL_MAYBE_FAST_MATH__));
}
METAL_FUNC bfloat max(bfloat x, bfloat y) {
  ++own_calls;
  return bfloat(__metal_fmax(float(x), float(y), __METAL_MAYBE_FAST_MATH__));
}
METAL_FUNC bfloat frexp(bfloat x, int& e) { return bfloat(__metal_frexp(float(x), &e)); }
namespace fast {
METAL_FUNC bfloat exp(bfloat x) {
  ++own_calls;
  return bfloat(__metal_exp(float(x), __METAL_FAST_MATH__));
}
}  // namespace fast
namespace precise {
METAL_FUNC bfloat exp(bfloat x) {
  ++own_calls;
  return bfloat(__metal_exp(float(x), __METAL_PRECISE_MATH__));
}
}  // namespace precise
}  // namespace metal

namespace {

using namespace metal;
using metalsim::msl_test::uniform_real;

static_assert(__METAL_FAST_MATH__ && !__METAL_PRECISE_MATH__);
static_assert(__metal_get_simdgroup_size(ushort()) == 32);
static_assert(std::is_same_v<decltype(__metal_get_simdgroup_size(uint())), uint>);

TEST(Intrinsics, MathForwardsToTheLibrary) {
  for (int i = 0; i < 200; ++i) {
    const float x = uniform_real(-4.0f, 4.0f), y = uniform_real(0.1f, 4.0f),
                z = uniform_real(-4.0f, 4.0f);
    EXPECT_EQ(__metal_exp(x, __METAL_FAST_MATH__), metal::exp(x));  // written out: elementary.h
    EXPECT_EQ(__metal_fabs(x, __METAL_PRECISE_MATH__), std::fabs(x));
    EXPECT_EQ(__metal_sqrt(y, true), std::sqrt(y));
    EXPECT_EQ(__metal_floor(x, true), std::floor(x));
    EXPECT_EQ(__metal_fmax(x, z, true), std::fmax(x, z));
    EXPECT_EQ(__metal_fmod(x, y, true), std::fmod(x, y));
    EXPECT_EQ(__metal_atan2(x, y, true), std::atan2(x, y));
    EXPECT_EQ(__metal_fmedian3(x, y, z, true),
              std::fmax(std::fmin(x, y), std::fmin(std::fmax(x, y), z)));
    EXPECT_EQ(__metal_fma(x, y, z), std::fma(x, y, z));
    EXPECT_EQ(__metal_nextafter(x, z), std::nextafter(x, z));
    EXPECT_EQ(__metal_ldexp(x, 3, true), std::ldexp(x, 3));
    int e = 0, model_e = 0;
    EXPECT_EQ(__metal_frexp(x, &e), std::frexp(x, &model_e));
    EXPECT_EQ(e, model_e);
  }
  // They take what the library function takes: half and vectors too.
  EXPECT_EQ(float(__metal_exp2(half(3.0f), true)), 8.0f);
  const float2 v = __metal_fabs(float2(-1.5f, 2.0f), true);
  EXPECT_EQ(v.x, 1.5f);
  EXPECT_EQ(v.y, 2.0f);
}

TEST(Intrinsics, ProgramBfloatOverloadsAreCalledInsteadOfOurs) {
  for (int i = 0; i < 100; ++i) {
    const bfloat x(uniform_real(-4.0f, 4.0f)), y(uniform_real(-4.0f, 4.0f));
    own_calls = 0;
    EXPECT_EQ(exp(x).bits, bfloat(std::exp(float(x))).bits);
    EXPECT_EQ(fast::exp(x).bits, bfloat(std::exp(float(x))).bits);
    EXPECT_EQ(precise::exp(x).bits, bfloat(std::exp(float(x))).bits);
    EXPECT_EQ(abs(x).bits, bfloat(std::fabs(float(x))).bits);
    EXPECT_EQ(max(x, y).bits, bfloat(std::fmax(float(x), float(y))).bits);
    EXPECT_EQ(own_calls, 5);
    int e = 0, model_e = 0;
    EXPECT_EQ(frexp(x, e).bits, bfloat(std::frexp(float(x), &model_e)).bits);
    EXPECT_EQ(e, model_e);
  }
}

TEST(Intrinsics, OurBfloatOverloadsRemainWhereTheProgramDefinesNone) {
  own_calls = 0;
  const bfloat x(0.75f);
  EXPECT_EQ(log(x).bits, bfloat(std::log(0.75f)).bits);
  EXPECT_EQ(fast::sqrt(x).bits, bfloat(std::sqrt(0.75f)).bits);
  EXPECT_EQ(min(x, bfloat(0.5f)).bits, bfloat(0.5f).bits);
  EXPECT_EQ(clamp(x, bfloat(0.0f), bfloat(0.5f)).bits, bfloat(0.5f).bits);
  // Vector overloads call the scalar bfloat function the lane type finds: ours here.
  const bfloat2 v = exp2(bfloat2(bfloat(1.0f), bfloat(3.0f)));
  EXPECT_EQ(float(v.x), 2.0f);
  EXPECT_EQ(float(v.y), 8.0f);
  EXPECT_EQ(own_calls, 0);
}

}  // namespace
