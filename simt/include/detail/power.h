#pragma once
// pow of float, written in plain IEEE arithmetic (no library call, no table, no branch: selects
// only) so that the compiler can vectorize it across a lane loop, for the reasons of exp and log
// (detail/elementary.h) and sin and cos (detail/trig.h): a libm call keeps a lane loop scalar
// (a rope's `pow(base, 2 d / head_dim)` kept the whole loop so), libmvec's vector functions round
// differently from its scalar ones, and every path here runs the same operations in the same order
// (kernels are compiled with -ffp-contract=off), so vector and scalar forms agree bit for bit.
//
// Accuracy. MSL allows pow 16 ulp in precise mode (its fast mode is looser). This is within
// 0.501 ulp of the exact |x|^y: everything is computed in double, and the result is rounded once
// to float (tests/include/power_test.cpp holds it to 1 ulp against the C library's double pow).
//
// Method, for finite nonzero x and finite y: |x|^y = 2^t with t = y log2|x|.
// - log2|x|: x = 2^e m with m in [sqrt(1/2), sqrt(2)) (a subnormal x scaled by 2^24 first), and
//   log2 m = (2 / ln 2) atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716, by the atanh series to
//   s^25 (truncation below 2^-62 relative). e + log2 m rounds to double once: |t|'s error is a few
//   units of 2^-53 relative.
// - 2^t: t clamped to [-300, 300] (beyond it float overflows or underflows anyway), n = t rounded
//   to an integer (adding and subtracting 1.5 * 2^52), f = t - n exactly, |f| <= 1/2, 2^f =
//   e^(f ln 2) by its Taylor polynomial to degree 13 (truncation below 2^-60), 2^n made from its
//   exponent bits (exact in double for |n| <= 300). The result's relative error is below
//   |t| 2^-51, under 2^-42 for any t that does not overflow float: far below float's half ulp.
// Special values follow C99 (Annex F.9.4.4) and IEEE 754's pow, as MSL's precise pow does:
// pow(x, +-0) = 1 and pow(1, y) = 1 even for NaN; a negative finite x to a finite non-integer y is
// NaN; zeros and infinities give 0 or infinity with the sign of x only for odd integer y;
// pow(-1, +-inf) = 1; |x| < 1 or > 1 to +-inf give 0 or infinity; NaN otherwise propagates.

namespace metal::detail::power {

#define METAL_POWER [[gnu::always_inline]] inline

METAL_POWER unsigned bits_of(float x) { return __builtin_bit_cast(unsigned, x); }
METAL_POWER float float_of(unsigned u) { return __builtin_bit_cast(float, u); }

// log2 of a finite nonzero |x|, in double (method above).
METAL_POWER double log2_magnitude(float x) {
  unsigned bits = bits_of(x) & 0x7fffffffu;
  const bool subnormal = bits < 0x00800000u;
  const unsigned scaled = bits_of(float_of(bits) * 0x1p24f);  // exact: a normal float now
  bits = subnormal ? scaled : bits;
  int e = int(bits >> 23) - 127 - (subnormal ? 24 : 0);
  unsigned m_bits = (bits & 0x007fffffu) | 0x3f800000u;  // m in [1, 2)
  const bool upper = m_bits > 0x3fb504f3u;               // m > sqrt(2) (rounded down)
  m_bits = upper ? m_bits - 0x00800000u : m_bits;        // m / 2, in [sqrt(1/2), 1)
  e = upper ? e + 1 : e;
  const double m = double(float_of(m_bits));
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double series = 1.0 / 25;  // atanh(s) / s = sum s^(2k) / (2k + 1), Horner from s^24
  series = series * s2 + 1.0 / 23;
  series = series * s2 + 1.0 / 21;
  series = series * s2 + 1.0 / 19;
  series = series * s2 + 1.0 / 17;
  series = series * s2 + 1.0 / 15;
  series = series * s2 + 1.0 / 13;
  series = series * s2 + 1.0 / 11;
  series = series * s2 + 1.0 / 9;
  series = series * s2 + 1.0 / 7;
  series = series * s2 + 1.0 / 5;
  series = series * s2 + 1.0 / 3;
  series = series * s2 + 1.0;
  constexpr double kTwoOverLn2 = 0x1.71547652b82fep+1;
  return double(e) + (s * series) * kTwoOverLn2;
}

// 2^t in double, t clamped to [-300, 300] (method above).
METAL_POWER double exp2_clamped(double t) {
  t = t > 300.0 ? 300.0 : t;
  t = t < -300.0 ? -300.0 : t;
  constexpr double kRoundToInteger = 0x1.8p52;
  const double shifted = t + kRoundToInteger;  // n in the low bits of its significand
  const double n = shifted - kRoundToInteger;
  const double g = (t - n) * 0x1.62e42fefa39efp-1;  // f ln 2, |g| <= 0.347
  double p = 1.0 / 6227020800.0;                    // 1/13!
  p = p * g + 1.0 / 479001600.0;
  p = p * g + 1.0 / 39916800.0;
  p = p * g + 1.0 / 3628800.0;
  p = p * g + 1.0 / 362880.0;
  p = p * g + 1.0 / 40320.0;
  p = p * g + 1.0 / 5040.0;
  p = p * g + 1.0 / 720.0;
  p = p * g + 1.0 / 120.0;
  p = p * g + 1.0 / 24.0;
  p = p * g + 1.0 / 6.0;
  p = p * g + 0.5;
  p = p * g + 1.0;
  p = p * g + 1.0;
  const auto n_int =
      static_cast<int>(static_cast<unsigned>(__builtin_bit_cast(unsigned long long, shifted)));
  const double scale =
      __builtin_bit_cast(double, (unsigned long long)((long long)(n_int) + 1023) << 52);
  return p * scale;
}

METAL_POWER float pow(float x, float y) {
  constexpr float kInf = __builtin_inff();
  const float ax = float_of(bits_of(x) & 0x7fffffffu), ay = float_of(bits_of(y) & 0x7fffffffu);
  const bool x_nan = x != x, y_nan = y != y;
  const bool x_zero = ax == 0.0f, x_inf = ax == kInf, y_inf = ay == kInf;
  // y's integer and odd tests, converting only where the conversion is defined.
  const float y_small = ay < 0x1p23f ? y : 0.0f;
  const bool y_integer = ay >= 0x1p23f || float(int(y_small)) == y;
  const float y_below_2_24 = ay < 0x1p24f ? y : 0.0f;
  const bool y_odd = y_integer && ay < 0x1p24f && (int(y_below_2_24) & 1) != 0;
  const bool regular = !(x_nan || y_nan || x_zero || x_inf || y_inf);
  float magnitude =
      float(exp2_clamped(double(regular ? y : 0.0f) * log2_magnitude(regular ? ax : 1.0f)));
  magnitude = x_zero ? (y < 0.0f ? kInf : 0.0f) : magnitude;
  magnitude = x_inf ? (y < 0.0f ? 0.0f : kInf) : magnitude;
  const bool finite_x_to_infinity = y_inf && !x_zero && !x_inf;
  const float to_infinity = ax == 1.0f ? 1.0f : ((ax < 1.0f) == (y < 0.0f) ? kInf : 0.0f);
  magnitude = finite_x_to_infinity ? to_infinity : magnitude;
  const bool negative = (bits_of(x) >> 31) != 0 && y_odd;
  float r = negative ? -magnitude : magnitude;
  r = (x < 0.0f && !x_inf && !y_integer && !y_inf) ? __builtin_nanf("") : r;
  r = (x_nan || y_nan) ? __builtin_nanf("") : r;
  return (y == 0.0f || x == 1.0f) ? 1.0f : r;
}

#undef METAL_POWER

}  // namespace metal::detail::power
