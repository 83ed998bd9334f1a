#pragma once
// exp, exp2, log, log2 and tanh of float, written in plain IEEE arithmetic (no library call, no
// table, no branch: selects only) so that the compiler can vectorize them across a lane loop.
//
// Why not the C library: a call to expf is opaque to the loop vectorizer, so every lane of an
// element-wise or softmax lane loop made one scalar call, and the whole loop stayed scalar
// (docs/performance.md, "Vectorizable math"). Why not a vector math library (libmvec through
// -fveclib): its vector functions round differently from the scalar ones, and metalsim runs one
// thread in several code paths (the fibers' scalar entry, a lane loop's vector body and its
// scalar remainder) which must give the same bits (docs/performance.md, "Math modes"). Here every
// path runs the same operations in the same order with per-operation rounding (kernels are
// compiled with -ffp-contract=off), so the vector and scalar forms agree bit for bit.
//
// Accuracy, measured against double-precision results by tests/include/math_test.cpp over
// random and swept arguments: within 2 ulp of the correctly rounded float (MSL's precise mode
// allows 4 for exp/exp2/log/log2 and 5 for tanh), subnormal results included.
//
// Methods (textbook ones): exp reduces x = n ln2 + r, |r| <= ln2 / 2, with ln2 split in a high
// part exact in products with n and a low part (Cody and Waite), evaluates e^r by its Taylor
// polynomial to degree 7 (truncation error below 2^-27) and scales by 2^n in two exact-or-once-
// rounded multiplications (so results near overflow and in the subnormal range round once).
// log writes x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f), and
// log(1 + f) = f - s (f - R(s^2)) where R is the atanh series; tanh is its odd Taylor polynomial
// below 0.625 and 1 - 2 / (e^{2|x|} + 1) above.

namespace metal::detail::elementary {

// Inlined whatever the optimizer's size heuristics say: a call left in a lane loop's body stops
// its vectorization as a library call would.
#define METAL_ELEMENTARY [[gnu::always_inline]] inline

METAL_ELEMENTARY float from_bits(unsigned u) { return __builtin_bit_cast(float, u); }
METAL_ELEMENTARY unsigned to_bits(float x) { return __builtin_bit_cast(unsigned, x); }
// 2^k for k in [-126, 127], exactly.
METAL_ELEMENTARY float pow2i(int k) { return from_bits(unsigned(k + 127) << 23); }
// x rounded to the nearest integer (halves away from zero), for |x| < 2^31. A truncating
// conversion, which every x86-64 vector unit has (a rounding instruction needs SSE4.1).
METAL_ELEMENTARY int round_to_int(float x) { return int(x + (x < 0.0f ? -0.5f : 0.5f)); }
METAL_ELEMENTARY bool is_nan(float x) { return x != x; }

inline constexpr float kLn2Hi = 0x1.62e4p-1f;  // ln 2 to 16 bits: n * kLn2Hi is exact, |n| < 2^8
inline constexpr float kLn2Lo = 0x1.7f7d1cp-20f;  // ln 2 - kLn2Hi
inline constexpr float kLog2e = 0x1.715476p+0f;
// Beyond these, exp's result is infinite or zero whatever the rounding; clamping there keeps
// the integer conversions in range.
inline constexpr float kExpArgMax = 89.0f;
inline constexpr float kExpArgMin = -104.0f;

// e^r for |r| <= ln2 / 2 (slightly beyond is fine), within 1 ulp.
METAL_ELEMENTARY float exp_reduced(float r) {
  float p = 1.0f / 5040.0f;
  p = 1.0f / 720.0f + r * p;
  p = 1.0f / 120.0f + r * p;
  p = 1.0f / 24.0f + r * p;
  p = 1.0f / 6.0f + r * p;
  p = 0.5f + r * p;
  return 1.0f + (r + r * (r * p));
}

// p * 2^n for n in [-150, 128], rounding once: 2^n as two normal powers of two.
METAL_ELEMENTARY float scale(float p, int n) {
  const int half = n / 2;
  return p * pow2i(half) * pow2i(n - half);
}

METAL_ELEMENTARY float exp(float x) {
  const float xc = is_nan(x) ? 0.0f : (x > kExpArgMax ? kExpArgMax : (x < kExpArgMin ? kExpArgMin : x));
  const int n = round_to_int(xc * kLog2e);
  const float nf = float(n);
  const float r = (xc - nf * kLn2Hi) - nf * kLn2Lo;
  const float result = scale(exp_reduced(r), n);
  return is_nan(x) ? x : result;
}

METAL_ELEMENTARY float exp2(float x) {
  const float xc = is_nan(x) ? 0.0f : (x > 129.0f ? 129.0f : (x < -151.0f ? -151.0f : x));
  const int rounded = round_to_int(xc);
  const int n = rounded > 128 ? 128 : (rounded < -150 ? -150 : rounded);
  // Exact; |f| <= 1/2 but where n was clamped (and the result is 0 or infinite anyway).
  const float f = xc - float(n);
  // e^(f ln 2): f * ln2 with ln2 in two parts, so the product's rounding is below 2^-40.
  const float r = f * kLn2Hi + f * kLn2Lo;
  const float result = scale(exp_reduced(r), n);
  return is_nan(x) ? x : result;
}

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1], within 1 ulp.
METAL_ELEMENTARY float log1p_reduced(float f) {
  const float s = f / (2.0f + f);
  const float z = s * s;
  // R = 2 z / 3 + 2 z^2 / 5 + ... (the atanh series of 2 atanh(s) = log(1 + f), less 2s).
  float q = 2.0f / 13.0f;
  q = 2.0f / 11.0f + z * q;
  q = 2.0f / 9.0f + z * q;
  q = 2.0f / 7.0f + z * q;
  q = 2.0f / 5.0f + z * q;
  q = 2.0f / 3.0f + z * q;
  const float r = z * q;
  // 2s = f - s f, so log(1 + f) = 2s + s R = f - s (f - R).
  return f - s * (f - r);
}

// The parts of a finite x > 0: x = 2^e (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)).
struct LogParts {
  int e;
  float f;
};
METAL_ELEMENTARY LogParts log_parts(float x) {
  const bool subnormal = x < 0x1p-126f;
  const unsigned bits = to_bits(subnormal ? x * 0x1p23f : x);
  int e = int(bits >> 23) - 127 - (subnormal ? 23 : 0);
  float m = from_bits((bits & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  const bool high = m > 0x1.6a09e6p+0f;                       // sqrt(2)
  m = high ? m * 0.5f : m;
  e = high ? e + 1 : e;
  return {e, m - 1.0f};  // m - 1 is exact: m is in [1/2, 2]
}

// What log and log2 return for x that is not finite and positive; `finite` for the rest.
METAL_ELEMENTARY float log_special(float x, float finite) {
  constexpr float kInf = __builtin_huge_valf();
  const float nonpositive = x == 0.0f ? -kInf : __builtin_nanf("");
  return is_nan(x) ? x : (x == kInf ? kInf : (x > 0.0f ? finite : nonpositive));
}

METAL_ELEMENTARY float log(float x) {
  const bool usable = x > 0.0f && x < __builtin_huge_valf();
  const LogParts p = log_parts(usable ? x : 1.0f);
  const float ef = float(p.e);
  const float finite = ef * kLn2Hi + (ef * kLn2Lo + log1p_reduced(p.f));
  return log_special(x, finite);
}

METAL_ELEMENTARY float log2(float x) {
  // l log2(e) as l_hi H (exact: 11 by 13 significant bits) plus the small products.
  constexpr float kLog2eHi = 0x1.715p+0f;
  constexpr float kLog2eLo = 0x1.1d94aep-14f;
  const bool usable = x > 0.0f && x < __builtin_huge_valf();
  const LogParts p = log_parts(usable ? x : 1.0f);
  const float l = log1p_reduced(p.f);
  const float l_hi = from_bits(to_bits(l) & 0xffffe000u);
  const float l_lo = l - l_hi;
  const float finite = float(p.e) + (l_hi * kLog2eHi + (l_lo * kLog2eHi + l * kLog2eLo));
  return log_special(x, finite);
}

// tanh x = x - x^3/3 + 2x^5/15 - ... below 0.625 (terms to x^21: truncation below 2^-28).
METAL_ELEMENTARY float tanh_small(float x) {
  const float z = x * x;
  float p = 0x1.967e18p-14f;
  p = -0x1.f57d78p-13f + z * p;
  p = 0x1.355824p-11f + z * p;
  p = -0x1.7da364p-10f + z * p;
  p = 0x1.d6d3d0p-9f + z * p;
  p = -0x1.226e36p-7f + z * p;
  p = 0x1.664f48p-6f + z * p;
  p = -0x1.ba1ba2p-5f + z * p;
  p = 0x1.111112p-3f + z * p;
  p = -0x1.555556p-2f + z * p;
  return x + x * (z * p);
}

METAL_ELEMENTARY float tanh(float x) {
  const float a = __builtin_fabsf(x);
  // 1 - 2 / (e^{2a} + 1); from 10 on, e^{2a} > 2^28 and the result rounds to 1 (as tanh's).
  const float large = 1.0f - 2.0f / (exp(2.0f * (a > 10.0f ? 10.0f : a)) + 1.0f);
  const float magnitude = a < 0.625f ? tanh_small(a) : large;
  return is_nan(x) ? x : __builtin_copysignf(magnitude, x);
}

}  // namespace metal::detail::elementary

#undef METAL_ELEMENTARY
