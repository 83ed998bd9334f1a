#pragma once
// Helpers shared by the MSL header tests: a fixed-seed generator and ulp distances.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include <metal_stdlib>

namespace metalsim::msl_test {

inline std::mt19937& rng() {
  static std::mt19937 g(20240611u);
  return g;
}
inline float uniform_real(float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(rng());
}
inline int32_t uniform_int(int32_t lo, int32_t hi) {
  return std::uniform_int_distribution<int32_t>(lo, hi)(rng());
}
// A random finite half from its bit pattern (every exponent equally likely).
inline metal::half random_half() {
  for (;;) {
    const auto bits = uint16_t(rng()() & 0xffffu);
    const auto h = __builtin_bit_cast(metal::half, bits);
    if (std::isfinite(float(h))) return h;
  }
}
// Distance in units in the last place of float between a and b (0 when both are NaN).
inline double ulp_float(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0.0;
  if (a == b) return 0.0;
  const double u = std::ldexp(1.0, std::max(std::ilogb(b), -126) - 23);
  return std::fabs(double(a) - double(b)) / u;
}
// |got - want| in ulps of float at the exact result `want` (the subnormal spacing below 2^-126):
// 0 when both are NaN, infinite when only one is NaN, or when one is infinite (a result that
// overflows float included) and the other is not the same.
inline double ulp_exact(float got, double want) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) == std::isnan(got) ? 0.0 : HUGE_VAL;
  const float rounded = float(want);  // overflows to infinity where the exact result does
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0.0 : HUGE_VAL;
  int e = 0;
  std::frexp(want, &e);
  const double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  return std::fabs(double(got) - want) / ulp;
}
// A float function under test, with the double-precision function that models it.
struct UnaryCase {
  const char* name;
  float (*f)(float);
  double (*model)(double);
};
// The largest ulp_exact error of a case over the arguments taken, and where (a NaN error counts
// as the largest).
struct WorstUlp {
  double err = 0.0;
  float at = 0.0f;
  void take(const UnaryCase& c, float x) {
    const double e = ulp_exact(c.f(x), c.model(double(x)));
    if (e > err || std::isnan(e)) {
      err = e;
      at = x;
    }
  }
};
// Distance in ulps of half (binary16, 10 fraction bits; subnormal spacing 2^-24).
inline double ulp_half(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0.0;
  if (a == b) return 0.0;
  const double u = std::ldexp(1.0, std::max(std::ilogb(b), -14) - 10);
  return std::fabs(double(a) - double(b)) / u;
}

}  // namespace metalsim::msl_test
