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
// part exact in products with n and a low part (Cody and Waite), evaluates e^r by a polynomial of
// degree 6 fitted on that interval (0.14 ulp from e^r) and scales by 2^n in two exact-or-once-
// rounded multiplications (so results near overflow and in the subnormal range round once).
// log writes x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f), and
// log(1 + f) = f - s (f - R(s^2)) where R is the atanh series; tanh is an odd polynomial of degree
// 9 below 0.375 and E / (E + 2) with E = e^{2|x|} - 1 above. The fitted coefficients are
// Chebyshev fits (mpmath's chebyfit) rounded to float; an exhaustive scan of every float argument
// against double results gave at most 1.04 ulp for exp and 1.5 ulp for tanh (docs/performance.md,
// "Cheaper exp and tanh").

namespace metal::detail::elementary {

// Inlined whatever the optimizer's size heuristics say: a call left in a lane loop's body stops
// its vectorization as a library call would.
#define METAL_ELEMENTARY [[gnu::always_inline]] inline

METAL_ELEMENTARY float from_bits(unsigned u) { return __builtin_bit_cast(float, u); }
METAL_ELEMENTARY unsigned to_bits(float x) { return __builtin_bit_cast(unsigned, x); }
// 2^k for k in [-126, 127], exactly.
METAL_ELEMENTARY float pow2i(int k) { return from_bits(unsigned(k + 127) << 23); }
// Rounding by adding 1.5 * 2^23: for |x| < 2^22 the sum's last bit is worth 1, so the addition
// rounds x to an integer (to nearest, ties to even) and the sum's low bits hold it. Two additions
// and an integer subtraction, where a compare, a select and two conversions did it before; exact
// because kernels are never compiled with reassociation (cmake/MetalsimMathMode.cmake), which
// would fold (x + s) - s into x.
inline constexpr float kRoundShift = 0x1.8p23f;
struct Rounded {
  float value;  // x rounded to an integer, as a float
  int n;        // the same, as an int
};
METAL_ELEMENTARY Rounded round_to_integer(float x) {
  const float shifted = x + kRoundShift;
  return {shifted - kRoundShift, int(to_bits(shifted) - to_bits(kRoundShift))};
}
METAL_ELEMENTARY bool is_nan(float x) { return x != x; }

inline constexpr float kLn2Hi = 0x1.62e4p-1f;     // ln 2 to 16 bits: n * kLn2Hi is exact, |n| < 2^8
inline constexpr float kLn2Lo = 0x1.7f7d1cp-20f;  // ln 2 - kLn2Hi
inline constexpr float kLog2e = 0x1.715476p+0f;
// Beyond these, exp's result is infinite or zero whatever the rounding; clamping there keeps
// the integer conversions in range.
inline constexpr float kExpArgMax = 89.0f;
inline constexpr float kExpArgMin = -104.0f;

// e^r - 1 - r for |r| <= 1.01 ln2 / 2, as r^2 Q(r): Q of degree 4 fitted to (e^r - 1 - r) / r^2
// on that interval (Chebyshev, within 7e-8 of it: 0.14 ulp of e^r), so e^r is 1 + (r + tail).
METAL_ELEMENTARY float expm1_tail(float r) {
  float q = 0x1.6d1606p-10f;
  q = 0x1.12106cp-7f + r * q;
  q = 0x1.555516p-5f + r * q;
  q = 0x1.5554d8p-3f + r * q;
  q = 0.5f + r * q;
  return r * (r * q);
}

// e^r for |r| <= ln2 / 2 (slightly beyond is fine), within 1 ulp.
METAL_ELEMENTARY float exp_reduced(float r) { return 1.0f + (r + expm1_tail(r)); }

// x = n ln2 + r with |r| <= ln2 / 2 (to rounding), for |x| < 2^8: r is (x - n ln2_hi) - n ln2_lo,
// ln2_hi's product with n exact (Cody and Waite).
struct ReducedExp {
  float r;
  int n;
};
METAL_ELEMENTARY ReducedExp reduce_exp(float x) {
  const Rounded n = round_to_integer(x * kLog2e);
  return {(x - n.value * kLn2Hi) - n.value * kLn2Lo, n.n};
}

// p * 2^n for n in [-150, 128], rounding once: 2^n as two normal powers of two (n >> 1 is
// floor(n / 2): one shift, where n / 2 takes three).
METAL_ELEMENTARY float scale(float p, int n) {
  const int half = n >> 1;
  return p * pow2i(half) * pow2i(n - half);
}

METAL_ELEMENTARY float exp(float x) {
  const float xc =
      is_nan(x) ? 0.0f : (x > kExpArgMax ? kExpArgMax : (x < kExpArgMin ? kExpArgMin : x));
  const ReducedExp reduced = reduce_exp(xc);
  const float result = scale(exp_reduced(reduced.r), reduced.n);
  return is_nan(x) ? x : result;
}

METAL_ELEMENTARY float exp2(float x) {
  const float xc = is_nan(x) ? 0.0f : (x > 129.0f ? 129.0f : (x < -151.0f ? -151.0f : x));
  const int rounded = round_to_integer(xc).n;
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
  const bool high = m > 0x1.6a09e6p+0f;                     // sqrt(2)
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

// tanh x for |x| < 0.375 as x + x z P(z), z = x^2: P of degree 3 fitted to (tanh x - x) / x^3 on
// that interval (Chebyshev; 0.06 ulp of tanh). Below 0.375 the quotient below loses up to 2.5 ulp:
// e^{2a} - 1 is rounded once near a power of two the result is not near.
METAL_ELEMENTARY float tanh_small(float x) {
  const float z = x * x;
  float p = 0x1.407732p-6f;
  p = -0x1.b87cp-5f + z * p;
  p = 0x1.110e2cp-3f + z * p;
  p = -0x1.555554p-2f + z * p;
  return x + x * (z * p);
}

METAL_ELEMENTARY float tanh(float x) {
  const float a = __builtin_fabsf(x);
  // tanh a = E / (E + 2) with E = e^{2a} - 1 = 2^n (1 + p) - 1 = 2^n p + (2^n - 1), p = e^r - 1:
  // one exponential's reduction and polynomial and one division. From 10 on, E > 2^28 and the
  // quotient rounds to 1 (as tanh's).
  const ReducedExp reduced = reduce_exp(2.0f * (a > 10.0f ? 10.0f : a));
  const float p = reduced.r + expm1_tail(reduced.r);
  const float power = pow2i(reduced.n);
  const float e_minus_1 = power * p + (power - 1.0f);
  const float magnitude = a < 0.375f ? tanh_small(a) : e_minus_1 / (e_minus_1 + 2.0f);
  return is_nan(x) ? x : __builtin_copysignf(magnitude, x);
}

}  // namespace metal::detail::elementary

#undef METAL_ELEMENTARY
