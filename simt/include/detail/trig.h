#pragma once
// sin, cos and tan of float, written in plain IEEE arithmetic (no library call, no table lookup,
// no branch the vectorizer cannot turn into a select) so that the compiler can vectorize them
// across a lane loop, for the same reasons as exp and log (detail/elementary.h: a libm call keeps a
// lane loop scalar; libmvec's vector functions round differently from its scalar ones; every path
// here runs the same operations in the same order, kernels being compiled with -ffp-contract=off,
// so the vector and scalar forms of a thread agree bit for bit).
//
// Accuracy. MSL (Metal Shading Language Specification, "Math functions" accuracy tables, single
// precision) allows 4 ulp for sin and cos and 6 ulp for tan in precise mode; in fast mode, sin and
// cos have a maximum absolute error of 2^-13 for x in [-pi, pi] (none is given outside it) and
// tan is as sin(x) / cos(x). These are within 0.55 ulp of the exact result for every float
// argument: measured over all 2^32 (tests/include/trig_test.cpp, DISABLED_EveryFloat: sin 0.5294,
// cos 0.5293, tan 0.5442 ulp at most). The tests that run by default (a stride over every float,
// the reduction's boundaries, near multiples of pi/2) hold them to 1 ulp. metal::fast:: and
// metal::precise:: name these same functions.
//
// Method. All in double, on a = |x| (sin and tan are odd, cos is even: the sign goes back on at
// the end, so sin(-0) = -0). NaN and infinities give NaN.
// Reduction, a = n pi/2 + t with |t| <= pi/4 (a hair more through rounding), two ways:
// - a < 2^20 (n < 2^20): Cody and Waite's, t = ((a - n P1) - n P2) - n P3 with pi/2 in three
//   parts, the first two of 33 bits (n P1, n P2 exact), 119 bits in all: t's error is below 2^-99.
// - any finite a (no range limit; a branch-free Payne-Hanek): a 2/pi = n + r, t = r pi/2. 2/pi
//   is cut into 24-bit chunks c_j = C_j 2^(-24(j+1)). With a = m 2^(e-23), m < 2^24, each
//   product a c_j is exact in double, and a multiple of 4 (changing neither n mod 4 nor r) once
//   a >= 2^(49 + 24 j). So five chunks count, c_i..c_(i+4), with i = 0 below 2^49, 1 below 2^73,
//   2 below 2^97, 3 below 2^121 and 4 above (selects on a pick them). The first two products are
//   reduced modulo 4 exactly (adding and subtracting 1.5 * 2^54), and each term is added with the
//   integer part taken out first, so that r keeps its relative precision when the sum nearly
//   cancels. What the five chunks leave out is below 2^-71 in a 2/pi, far below the closest any
//   float comes to a multiple of pi/2 (the sweep of every float checks the result).
// A scalar call takes one of the two with a branch (predictable: arguments are mostly small); a
// vectorized loop computes both and selects, so each a gets the same bits in every code path.
// Evaluation: sin t and cos t by Taylor polynomials (below), the quadrant n mod 4 picks +-sin t
// or +-cos t, and the result is rounded once to float.
//
// Cost (bench/math_bench; docs/lanes.md, "Calls to libm"): a lane loop of sin vectorizes 8 wide
// and costs 1.8x glibc's sinf per element below 100, 0.9x above 10^6; a scalar call 3.3x (5x past
// 2^20), a scalar cos + sin of one angle 1.6-2x glibc's.

namespace metal::detail::trig {

#define METAL_TRIG [[gnu::always_inline]] inline

// 2/pi in 24-bit chunks: 2/pi = sum C_i 2^(-24(i+1)) + (less than 2^-240).
inline constexpr double kTwoOverPiChunk[10] = {
    0xA2F983p-24,  0x6E4E44p-48,  0x1529FCp-72,  0x2757D1p-96,  0xF534DDp-120,
    0xC0DB62p-144, 0x95993Cp-168, 0x439041p-192, 0xFE5163p-216, 0xABDEBBp-240,
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

// v modulo 4, exactly, in [-2, 2], for |v| < 2^53.
METAL_TRIG double mod4(double v) { return v - ((v + kRoundTo4) - kRoundTo4); }

// The chunks of 2/pi whose products with a = |x| count, c_i to c_(i+4): a = m 2^(e - 23) with
// m < 2^24, and a c_j is a multiple of 4 (it changes neither n mod 4 nor r) when
// e - 23 - 24 (j + 1) >= 2, that is a >= 2^(49 + 24 j). Chosen by selects on a between immediates:
// selects between elements of an array become a load at a selected index, which the vectorizer
// turns into one load per lane.
struct Window {
  double c[5];
};
// c_(k+i) for a in window i.
template <int k>
METAL_TRIG double pick_chunk(double a) {
  constexpr double c0 = kTwoOverPiChunk[k], c1 = kTwoOverPiChunk[k + 1],
                   c2 = kTwoOverPiChunk[k + 2], c3 = kTwoOverPiChunk[k + 3],
                   c4 = kTwoOverPiChunk[k + 4];
  double c = a >= 0x1p49 ? c1 : c0;
  c = a >= 0x1p73 ? c2 : c;
  c = a >= 0x1p97 ? c3 : c;
  return a >= 0x1p121 ? c4 : c;
}
METAL_TRIG Window window(double a) {
  return {
      {pick_chunk<0>(a), pick_chunk<1>(a), pick_chunk<2>(a), pick_chunk<3>(a), pick_chunk<4>(a)}};
}

// One more reduced term q into n + s: the integer part taken out before adding, so that s keeps
// its relative precision when the sum nearly cancels.
METAL_TRIG void accumulate(double& n, double& s, double q) {
  const double k = ((s + q) + kRoundTo1) - kRoundTo1;
  s = (s - k) + q;
  n += k;
}

// a = |x| finite: a 2/pi = n + r, any a.
METAL_TRIG Reduced reduce_any(float a) {
  const double ad = double(a);
  const Window w = window(ad);
  // Exact products; in window i, with a < 2^(49 + 24 i) and c_(i+k) < 2^(-24 (i + k)):
  // p0 < 2^49, p1 < 2^25 (both reduced modulo 4 first), p2 < 2, p3 < 2^-23, p4 < 2^-47.
  const double p0 = ad * w.c[0];
  const double p1 = ad * w.c[1];
  const double p2 = ad * w.c[2];
  const double p3 = ad * w.c[3];
  const double p4 = ad * w.c[4];
  double n = 0.0;
  double s = mod4(p0);
  accumulate(n, s, mod4(p1));
  accumulate(n, s, p2);
  const double r = s + (p3 + p4);
  return {int(n) & 3, r * kPiOver2};
}

// pi/2 in three parts, the first two of 33 bits so that n P1 and n P2 are exact for n < 2^20.
inline constexpr double kPiOver2Part1 = 0x1.921fb544p+0;
inline constexpr double kPiOver2Part2 = 0x1.0b4611a6p-34;
inline constexpr double kPiOver2Part3 = 0x1.3198a2e037073p-69;
inline constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
// Below this, reduce_small (Cody and Waite) holds: n < 2^20.
inline constexpr float kSmallArgument = 0x1p20f;

// a = |x| < 2^20: t = a - n pi/2 with pi/2 to 119 bits (n P1 exact, a - n P1 exact by Sterbenz, the
// other parts' products exact or below 2^-99), about a third of reduce_any's work.
METAL_TRIG Reduced reduce_small(float a) {
  const double ad = double(a);
  const double n = (ad * kTwoOverPi + kRoundTo1) - kRoundTo1;
  const double t = ((ad - n * kPiOver2Part1) - n * kPiOver2Part2) - n * kPiOver2Part3;
  return {int(n) & 3, t};
}

// Each path gives its own bits for a given a and every code path (scalar or vector) takes the
// same one for that a: a scalar call branches (predictably: arguments are mostly small), a
// vectorized loop computes both and selects.
METAL_TRIG Reduced reduce(float a) { return a < kSmallArgument ? reduce_small(a) : reduce_any(a); }

// sin t and cos t for |t| <= pi/4 (a hair beyond is fine) by their Taylor polynomials to t^9 and
// t^10: the first terms left out, t^11 / 11! and t^12 / 12!, are below 2^-28 of sin t and 2^-33 of
// cos t, a few hundredths of a float ulp.
METAL_TRIG double sin_reduced(double t) {
  const double z = t * t;
  double p = 1.0 / 362880.0;
  p = -1.0 / 5040.0 + z * p;
  p = 1.0 / 120.0 + z * p;
  p = -1.0 / 6.0 + z * p;
  return t + t * (z * p);
}
METAL_TRIG double cos_reduced(double t) {
  const double z = t * t;
  double p = -1.0 / 3628800.0;
  p = 1.0 / 40320.0 + z * p;
  p = -1.0 / 720.0 + z * p;
  p = 1.0 / 24.0 + z * p;
  p = -0.5 + z * p;
  return 1.0 + z * p;
}

// |x| as double, and 0 where x is not finite (the reduction then stays in range; the result is
// replaced by NaN).
METAL_TRIG float finite_magnitude(float x) {
  const float a = __builtin_fabsf(x);
  return a < __builtin_huge_valf() ? a : 0.0f;
}
METAL_TRIG bool is_finite(float x) { return __builtin_fabsf(x) < __builtin_huge_valf(); }

// The quadrant's choices as arithmetic, not selects: exact (a product by 0 or 1, a sum with a zero,
// never of a zero of the wrong sign: t = 0 only for x = 0, and then t = +0), and without the
// branch a scalar select of doubles becomes on x86, mispredicted on every other argument.
struct Quadrant {
  double odd;   // 1 for n odd, 0 for n even
  double even;  // 1 - odd
  double sign;  // -1 for n mod 4 in {2, 3}, +1 otherwise
};
METAL_TRIG Quadrant quadrant_of(int n) {
  const double odd = double(n & 1);
  return {odd, 1.0 - odd, double(1 - (n & 2))};
}

// sin x from the reduced argument's sin t and cos t: sin(t + n pi/2) for n mod 4 = 0, 1, 2, 3 is
// sin t, cos t, -sin t, -cos t; sin is odd, so x's sign goes back on.
METAL_TRIG float sin_from(float x, const Reduced& red, double s, double c) {
  const Quadrant q = quadrant_of(red.quadrant);
  const float magnitude = float((s * q.even + c * q.odd) * q.sign);
  const float result = __builtin_copysignf(1.0f, x) * magnitude;
  return is_finite(x) ? result : x - x;  // NaN for NaN and infinities
}
// cos(t + n pi/2): cos t, -sin t, -cos t, sin t (the sign of n + 1's quadrant); cos is even.
METAL_TRIG float cos_from(float x, const Reduced& red, double s, double c) {
  const Quadrant q = quadrant_of(red.quadrant);
  const Quadrant next = quadrant_of(red.quadrant + 1);
  const float result = float((c * q.even + s * q.odd) * next.sign);
  return is_finite(x) ? result : x - x;
}

// sin and cos put the whole computation in each arm of reduce's choice: after a scalar sin(x) the
// optimizer then knows which arm cos(x) takes and shares the reduction and polynomials with it
// (rope's cos + sin of one angle, scalar: 10 -> 6.8 ns); a vectorized loop is unchanged.
template <class Finish>
METAL_TRIG float by_range(float x, Finish finish) {
  const float a = finite_magnitude(x);
  return a < kSmallArgument ? finish(reduce_small(a)) : finish(reduce_any(a));
}

METAL_TRIG float sin(float x) {
  return by_range(x, [x](const Reduced& red) __attribute__((always_inline)) {
    return sin_from(x, red, sin_reduced(red.t), cos_reduced(red.t));
  });
}

METAL_TRIG float cos(float x) {
  return by_range(x, [x](const Reduced& red) __attribute__((always_inline)) {
    return cos_from(x, red, sin_reduced(red.t), cos_reduced(red.t));
  });
}

// One reduction for both; the same bits as sin(x) and cos(x).
METAL_TRIG float sincos(float x, float& cos_x) {
  const Reduced red = reduce(finite_magnitude(x));
  const double s = sin_reduced(red.t);
  const double c = cos_reduced(red.t);
  cos_x = cos_from(x, red, s, c);
  return sin_from(x, red, s, c);
}

METAL_TRIG float tan(float x) {
  const Reduced red = reduce(finite_magnitude(x));
  const double s = sin_reduced(red.t);
  const double c = cos_reduced(red.t);
  // tan(t + n pi/2): tan t for even n, -cot t for odd n.
  const Quadrant q = quadrant_of(red.quadrant);
  const double v = (s * q.even - c * q.odd) / (c * q.even + s * q.odd);
  const float result = __builtin_copysignf(1.0f, x) * float(v);
  return is_finite(x) ? result : x - x;
}

}  // namespace metal::detail::trig

#undef METAL_TRIG
