#pragma once
// metal::numeric_limits<T> (MSL spec 6.x): std::numeric_limits for the C++ types, and
// specialisations for half and bfloat.
#include <limits>

#include "detail/bfloat.h"
#include "detail/scalar.h"

namespace metal {

template <class T>
struct numeric_limits : std::numeric_limits<T> {};

namespace detail {
template <class T>
constexpr T from_bits16(uint16_t b) {
  return __builtin_bit_cast(T, b);
}
// The members shared by half and bfloat; digits and exponents differ.
template <class T, int Digits, int MinExp, int MaxExp, int Digits10, int MaxDigits10>
struct float16_limits {
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false,
                        is_exact = false, has_infinity = true, has_quiet_NaN = true,
                        has_signaling_NaN = true, is_iec559 = true, is_bounded = true,
                        is_modulo = false, traps = false, tinyness_before = false;
  static constexpr std::float_denorm_style has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr int digits = Digits, digits10 = Digits10, max_digits10 = MaxDigits10, radix = 2,
                       min_exponent = MinExp, max_exponent = MaxExp,
                       min_exponent10 = MinExp * 3 / 10, max_exponent10 = (MaxExp - 1) * 3 / 10;
};
}  // namespace detail

// ------------------------------ numeric_limits<half>
template <>
struct numeric_limits<half> : detail::float16_limits<half, 11, -13, 16, 3, 5> {
  static constexpr half min() { return detail::from_bits16<half>(0x0400); }
  static constexpr half max() { return detail::from_bits16<half>(0x7bff); }
  static constexpr half lowest() { return detail::from_bits16<half>(0xfbff); }
  static constexpr half epsilon() { return detail::from_bits16<half>(0x1400); }
  static constexpr half round_error() { return detail::from_bits16<half>(0x3800); }
  static constexpr half infinity() { return detail::from_bits16<half>(0x7c00); }
  static constexpr half quiet_NaN() { return detail::from_bits16<half>(0x7e00); }
  static constexpr half signaling_NaN() { return detail::from_bits16<half>(0x7d00); }
  static constexpr half denorm_min() { return detail::from_bits16<half>(0x0001); }
};

// ------------------------------ numeric_limits<bfloat>
template <>
struct numeric_limits<bfloat> : detail::float16_limits<bfloat, 8, -125, 128, 2, 4> {
  static constexpr bfloat min() { return bfloat::from_bits(0x0080); }
  static constexpr bfloat max() { return bfloat::from_bits(0x7f7f); }
  static constexpr bfloat lowest() { return bfloat::from_bits(0xff7f); }
  static constexpr bfloat epsilon() { return bfloat::from_bits(0x3c00); }
  static constexpr bfloat round_error() { return bfloat::from_bits(0x3f00); }
  static constexpr bfloat infinity() { return bfloat::from_bits(0x7f80); }
  static constexpr bfloat quiet_NaN() { return bfloat::from_bits(0x7fc0); }
  static constexpr bfloat signaling_NaN() { return bfloat::from_bits(0x7fa0); }
  static constexpr bfloat denorm_min() { return bfloat::from_bits(0x0001); }
};

}  // namespace metal
