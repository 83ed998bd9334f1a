#pragma once
// `bfloat` (MSL 3.1, spec 2.1): the upper 16 bits of an IEEE binary32. A trivially copyable 2-byte
// class; arithmetic converts to float, computes, and rounds back to nearest-even. Mixed expressions
// follow the rules of half: bfloat op bfloat -> bfloat, bfloat op integer -> bfloat,
// bfloat op float -> float.
#include <concepts>
#include <cstdint>
#include <type_traits>

namespace metal {

struct bfloat {
  uint16_t bits;

  bfloat() = default;
  constexpr bfloat(float f) : bits(from_float(f)) {}  // NOLINT: implicit, as in MSL
  template <class S>
    requires std::is_arithmetic_v<S> && (!std::same_as<S, float>)
  constexpr bfloat(S s) : bits(from_float(static_cast<float>(s))) {}
  // Assigning a class that converts to an arithmetic type works as on a built-in type (MLX's
  // steel_gemm_masked.h: `ScaleOp<bfloat>::scale = mask`, the mask a struct with `operator bool()`),
  // where it would take two user-defined conversions. An assignment, not a converting
  // constructor: that one would make `a * b` of two such classes ambiguous with bfloat's operators.
  template <class U>
    requires std::is_class_v<U> && (!std::same_as<std::remove_cv_t<U>, bfloat>) &&
             std::is_convertible_v<const U&, float>
  constexpr bfloat& operator=(const U& u) {
    bits = from_float(static_cast<float>(u));
    return *this;
  }
  constexpr operator float() const { return __builtin_bit_cast(float, uint32_t(bits) << 16); }

  static constexpr bfloat from_bits(uint16_t b) {
    bfloat r{};
    r.bits = b;
    return r;
  }
  // Round to nearest, ties to even; NaN stays a quiet NaN of the same sign.
  static constexpr uint16_t from_float(float f) {
    const uint32_t u = __builtin_bit_cast(uint32_t, f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);
    const uint32_t bias = 0x7fffu + ((u >> 16) & 1u);
    return uint16_t((u + bias) >> 16);
  }

  constexpr bfloat operator-() const { return from_bits(uint16_t(bits ^ 0x8000u)); }
  constexpr bfloat operator+() const { return *this; }
};

namespace detail {
template <class S>
concept bfloat_peer = std::is_arithmetic_v<S> || std::same_as<S, _Float16>;
// The result type of `bfloat op S`: bfloat for an integer S, else float's usual arithmetic
// conversion with S (float, or double and long double). Spelled without `float() + S()`: Clang
// substitutes into the return type before it checks the operators' constraints, and for S =
// bfloat that expression would look up these very operators again, without end.
template <class S>
using bfloat_result =
    std::conditional_t<std::is_integral_v<S>, bfloat,
                       std::conditional_t<(sizeof(S) > sizeof(float)), S, float>>;
}  // namespace detail

// ------------------------------ bfloat arithmetic
#define METAL_BFLOAT_BINARY(op)                                                          \
  constexpr bfloat operator op(bfloat a, bfloat b) { return bfloat(float(a) op float(b)); } \
  template <detail::bfloat_peer S>                                                       \
  constexpr detail::bfloat_result<S> operator op(bfloat a, S b) {                        \
    return detail::bfloat_result<S>(float(a) op b);                                      \
  }                                                                                      \
  template <detail::bfloat_peer S>                                                       \
  constexpr detail::bfloat_result<S> operator op(S a, bfloat b) {                        \
    return detail::bfloat_result<S>(a op float(b));                                      \
  }                                                                                      \
  constexpr bfloat& operator op##=(bfloat & a, bfloat b) { return a = a op b; }          \
  template <detail::bfloat_peer S>                                                       \
  constexpr bfloat& operator op##=(bfloat & a, S b) {                                    \
    return a = bfloat(float(a) op b);                                                    \
  }
METAL_BFLOAT_BINARY(+)
METAL_BFLOAT_BINARY(-)
METAL_BFLOAT_BINARY(*)
METAL_BFLOAT_BINARY(/)
#undef METAL_BFLOAT_BINARY

// ------------------------------ bfloat comparison
#define METAL_BFLOAT_COMPARE(op)                                                              \
  constexpr bool operator op(bfloat a, bfloat b) { return float(a) op float(b); }            \
  template <detail::bfloat_peer S>                                                          \
  constexpr bool operator op(bfloat a, S b) { return float(a) op b; }                       \
  template <detail::bfloat_peer S>                                                          \
  constexpr bool operator op(S a, bfloat b) { return a op float(b); }
METAL_BFLOAT_COMPARE(==)
METAL_BFLOAT_COMPARE(!=)
METAL_BFLOAT_COMPARE(<)
METAL_BFLOAT_COMPARE(<=)
METAL_BFLOAT_COMPARE(>)
METAL_BFLOAT_COMPARE(>=)
#undef METAL_BFLOAT_COMPARE

}  // namespace metal

// ------------------------------ bfloat limits
#define BFLOAT_MAX (metal::bfloat::from_bits(0x7f7f))
#define BFLOAT_MIN (metal::bfloat::from_bits(0x0080))
#define BFLOAT_EPSILON (metal::bfloat::from_bits(0x3c00))
#define BFLOAT_DIG 2
#define BFLOAT_MANT_DIG 8
#define BFLOAT_MAX_EXP 128
#define BFLOAT_MIN_EXP (-125)
#define BFLOAT_RADIX 2
