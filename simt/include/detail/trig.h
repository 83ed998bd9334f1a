#pragma once
// sin, cos and tan of float, written in plain IEEE arithmetic (no library call, no table, no
// branch: selects only) so that the compiler can vectorize them across a lane loop, for the same
// reasons as exp and log (detail/elementary.h: a libm call keeps a lane loop scalar; libmvec's
// vector functions round differently from its scalar ones; every path here runs the same
// operations in the same order, kernels being compiled with -ffp-contract=off, so the vector and
// scalar forms of a thread agree bit for bit).
//
// Accuracy. MSL (Metal Shading Language Specification, section 7.4 "Math functions", the tables of
// float accuracy) allows 4 ulp for sin and cos and 6 ulp for tan in precise mode; in fast mode,
// sin and cos have a maximum absolute error of 2^-13 for x in [-pi, pi] (outside it, none is
// given) and tan the error of sin(x) / cos(x) computed in fast mode. These are within 1 ulp of the
// exact result (nearly always correctly rounded) for every float argument:
// tests/include/trig_test.cpp sweeps every float.
//
// Method. The whole computation is in double, on |x| (sin and tan are odd, cos is even: the sign
// is put back at the end, so sin(-0) = -0).
// Reduction: |x| = (n + r) pi/2 with n an integer and |r| <= 1/2, for every finite float, by one
// branch-free Payne-Hanek-style sum: 2/pi is split into 8 chunks of 24 bits,
// c_i = C_i 2^(-24(i+1)), and since |x| = m 2^e with m < 2^24, each product |x| c_i is exact in
// double. A product that is a multiple of 4 changes neither the quadrant n mod 4 nor r, and every
// product of at least 2^53 is one (its 48-bit integer part times a power of two >= 4); the others
// are reduced modulo 4 exactly (rounding to a multiple of 4 by adding and subtracting 1.5 * 2^54).
// The reduced products are then summed with the integer part taken out at each step, so that the
// running fraction keeps its relative precision when the sum nearly cancels: r carries an error
// below 2^-50 r. The 192 bits of 2/pi leave a truncation error below 2^(128 - 192) = 2^-64 in
// |x| 2/pi, far below the closest any float comes to a multiple of pi/2 (the sweep of every float
// checks the result). The argument reduction therefore holds for every finite float; there is no
// separate small-argument path (it would be computed for every lane anyway, selects not branches).
// Evaluation: t = r pi/2, |t| <= pi/4, sin t and cos t by their Taylor polynomials to t^13 and
// t^14 (truncation below 2^-36 relative), in double; the quadrant n mod 4 picks +-sin t or +-cos t
// and the result is rounded once to float.

namespace metal::detail::trig {

#define METAL_TRIG [[gnu::always_inline]] inline

// 2/pi in 24-bit chunks: 2/pi = sum C_i 2^(-24(i+1)) + (less than 2^-192).
inline constexpr double kTwoOverPiChunk[8] = {
    0xA2F983p-24,  0x6E4E44p-48,  0x1529FCp-72,  0x2757D1p-96,
    0xF534DDp-120, 0xC0DB62p-144, 0x95993Cp-168, 0x439041p-192,
};
inline constexpr double kPiOver2 = 0x1.921fb54442d18p+0;
// Adding then subtracting these rounds to a multiple of 4 (|v| < 2^53) or to an integer
// (|v| < 2^51), exactly as round-to-nearest makes it.
inline constexpr double kRoundTo4 = 0x1.8p54;
inline constexpr double kRoundTo1 = 0x1.8p52;

struct Reduced {
  int quadrant;  // n mod 4
  double t;      // in [-pi/4, pi/4] (a hair beyond through rounding)
};

// p (an exact product |x| c_i) modulo 4, exactly, in [-2, 2]; 0 for p >= 2^53.
METAL_TRIG double mod4(double p) {
  const double rest = p - ((p + kRoundTo4) - kRoundTo4);
  return p < 0x1p53 ? rest : 0.0;
}

// a = |x| finite: a 2/pi = n + r.
METAL_TRIG Reduced reduce(double a) {
  double n = 0.0;
  double r = 0.0;
  for (double chunk : kTwoOverPiChunk) {
    const double q = mod4(a * chunk);
    const double k = ((r + q) + kRoundTo1) - kRoundTo1;  // the integer to take out
    r = (r - k) + q;
    n += k;
  }
  return {int(n) & 3, r * kPiOver2};
}

// sin t, cos t for |t| <= pi/4 (Taylor; truncation below 2^-36 relative).
METAL_TRIG double sin_reduced(double t) {
  const double z = t * t;
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = -1.0 / 39916800.0 + z * p;
  p = 1.0 / 362880.0 + z * p;
  p = -1.0 / 5040.0 + z * p;
  p = 1.0 / 120.0 + z * p;
  p = -1.0 / 6.0 + z * p;
  return t + t * (z * p);
}
METAL_TRIG double cos_reduced(double t) {
  const double z = t * t;
  double p = -1.0 / 87178291200.0;  // -1/14!
  p = 1.0 / 479001600.0 + z * p;
  p = -1.0 / 3628800.0 + z * p;
  p = 1.0 / 40320.0 + z * p;
  p = -1.0 / 720.0 + z * p;
  p = 1.0 / 24.0 + z * p;
  p = -0.5 + z * p;
  return 1.0 + z * p;
}

// |x| as double, and 0 where x is not finite (the reduction then stays in range; the result is
// replaced by NaN).
METAL_TRIG double finite_magnitude(float x) {
  const float a = __builtin_fabsf(x);
  return double(a < __builtin_huge_valf() ? a : 0.0f);
}
METAL_TRIG bool is_finite(float x) { return __builtin_fabsf(x) < __builtin_huge_valf(); }

METAL_TRIG float sin(float x) {
  const Reduced red = reduce(finite_magnitude(x));
  const double s = sin_reduced(red.t);
  const double c = cos_reduced(red.t);
  // sin(t + n pi/2) for n mod 4 = 0, 1, 2, 3: sin t, cos t, -sin t, -cos t.
  const double v = (red.quadrant & 1) ? c : s;
  const float magnitude = float((red.quadrant & 2) ? -v : v);
  const float result = __builtin_copysignf(1.0f, x) * magnitude;
  return is_finite(x) ? result : x - x;  // NaN for NaN and infinities
}

METAL_TRIG float cos(float x) {
  const Reduced red = reduce(finite_magnitude(x));
  const double s = sin_reduced(red.t);
  const double c = cos_reduced(red.t);
  // cos(t + n pi/2): cos t, -sin t, -cos t, sin t.
  const double v = (red.quadrant & 1) ? s : c;
  const float result = float(((red.quadrant + 1) & 2) ? -v : v);
  return is_finite(x) ? result : x - x;
}

METAL_TRIG float tan(float x) {
  const Reduced red = reduce(finite_magnitude(x));
  const double s = sin_reduced(red.t);
  const double c = cos_reduced(red.t);
  // tan(t + n pi/2): tan t for even n, -cot t for odd n.
  const double v = (red.quadrant & 1) ? -c / s : s / c;
  const float result = __builtin_copysignf(1.0f, x) * float(v);
  return is_finite(x) ? result : x - x;
}

}  // namespace metal::detail::trig

#undef METAL_TRIG
