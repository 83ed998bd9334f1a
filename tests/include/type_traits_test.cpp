// <metal_type_traits>: the type traits under metal:: and the predefined macros third-party
// MSL tests (MLX's bf16.h picks `typedef bfloat bfloat16_t;` on __HAVE_BFLOAT__).
#include <gtest/gtest.h>

#include "test_util.h"

using namespace metal;

namespace {

#if !defined(__HAVE_BFLOAT__) || __METAL_VERSION__ < 310
#error "metal_stdlib must claim MSL 3.1 with bfloat"
#endif

// As MLX writes them after `using namespace metal;`.
template <typename T, typename = typename enable_if<is_convertible_v<T, float>>::type>
constexpr METAL_FUNC float widen(T x) {
  return static_cast<float>(x);
}

static_assert(is_same_v<uint, unsigned int> && !is_same_v<half, float>);
static_assert(is_same_v<conditional_t<true, half, float>, half>);
static_assert(is_same_v<remove_cv_t<const volatile bfloat>, bfloat>);
static_assert(is_same_v<make_unsigned_t<int>, uint>);
static_assert(is_floating_point_v<half> && is_floating_point_v<bfloat> && is_floating_point_v<const float>);
static_assert(!is_floating_point_v<int> && !is_floating_point_v<float2>);
static_assert(is_arithmetic_v<half> && is_arithmetic_v<bfloat> && is_arithmetic_v<short> && !is_arithmetic_v<float2>);
static_assert(is_integral_v<ushort> && is_signed_v<int> && is_unsigned_v<uchar>);

TEST(TypeTraits, MetalFuncAndEnableIf) {
  EXPECT_EQ(widen(half(1.5)), 1.5f);
  EXPECT_EQ(widen(3), 3.0f);
}

}  // namespace
