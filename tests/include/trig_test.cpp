// sin, cos and tan of float as written out in detail/trig.h (so that lane loops vectorize them),
// against the C library's double sin, cos and tan of the same float argument (their error, below
// 1 ulp of double, is 2^-29 of a float ulp). MSL's precise mode allows 4 ulp for sin and cos and
// 6 for tan, fast mode an absolute error of 2^-13 for sin and cos on [-pi, pi]; detail/trig.h
// promises 1 ulp over every float, and that is what these tests hold it to.
//
// The tests run in a few seconds: a stride through every bit pattern, every float near the
// places where the reduction changes (the binades where another chunk of 2/pi stops counting),
// near multiples of pi/2, powers of two, and random arguments in [-2 pi, 2 pi]. Every float
// (2^32 arguments per function; 350 s for the three on 2 threads) is DISABLED_EveryFloat:
//   msl_types_test --gtest_also_run_disabled_tests --gtest_filter='Trig.DISABLED_EveryFloat'
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {

using Case = metalsim::msl_test::UnaryCase;
using Worst = metalsim::msl_test::WorstUlp;
using Fn = float (*)(float);

const Case kCases[] = {
    {"sin", [](float x) { return metal::sin(x); }, [](double x) { return std::sin(x); }},
    {"cos", [](float x) { return metal::cos(x); }, [](double x) { return std::cos(x); }},
    {"tan", [](float x) { return metal::tan(x); }, [](double x) { return std::tan(x); }},
};
constexpr double kPromisedUlp = 1.0;  // MSL precise: 4 (sin, cos), 6 (tan)

// Every float from bit pattern lo up to (not including) hi, both signs.
Worst sweep_bits(const Case& c, uint32_t lo, uint32_t hi, uint32_t stride = 1) {
  Worst w;
  for (uint64_t bits = lo; bits < hi; bits += stride) {
    const float x = __builtin_bit_cast(float, uint32_t(bits));
    w.take(c, x);
    w.take(c, -x);
  }
  return w;
}

uint32_t bits_of(float x) { return __builtin_bit_cast(uint32_t, x); }

// Every 1021st bit pattern (a prime stride: every binade of both signs, mantissas spread), about
// 4 million arguments per function.
TEST(Trig, WholeRangeStride) {
  for (const Case& c : kCases) {
    const Worst w = sweep_bits(c, 0, 0x7f800000u, 1021);
    EXPECT_LE(w.err, kPromisedUlp) << c.name << " at " << std::hexfloat << w.at;
  }
}

// Where the reduction changes: below 2^20 Cody and Waite's, above it the sum over chunks of 2/pi,
// whose product |x| c_i stops counting (it is a multiple of 4) from |x| >= 2^(24 i + 49) on. Every
// float within 2^16 ulps either side of 2^20, 2^49, 2^73, 2^97 and 2^121, and at the top of the
// range.
TEST(Trig, WhereTheReductionChanges) {
  for (const Case& c : kCases) {
    for (int e : {20, 49, 73, 97, 121}) {
      const uint32_t mid = bits_of(std::ldexp(1.0f, e));
      const Worst w = sweep_bits(c, mid - 0x10000u, mid + 0x10000u);
      EXPECT_LE(w.err, kPromisedUlp) << c.name << " at " << std::hexfloat << w.at;
    }
    const Worst top = sweep_bits(c, 0x7f800000u - 0x20000u, 0x7f800000u);
    EXPECT_LE(top.err, kPromisedUlp) << c.name << " at " << std::hexfloat << top.at;
  }
}

// Near k pi/2, where the reduced argument is smallest: the 601 floats around each of the first
// 5000 multiples, and around random multiples up to 2^40.
TEST(Trig, NearMultiplesOfHalfPi) {
  for (const Case& c : kCases) {
    Worst w;
    auto around = [&](double k) {
      const uint32_t mid = bits_of(float(k * (M_PI / 2)));
      for (uint32_t b = mid - 300; b <= mid + 300; ++b) w.take(c, __builtin_bit_cast(float, b));
    };
    for (int k = 1; k <= 5000; ++k) around(k);
    for (int i = 0; i < 2000; ++i)
      around(std::floor(std::ldexp(metalsim::msl_test::uniform_real(0.0f, 1.0f), 40)));
    EXPECT_LE(w.err, kPromisedUlp) << c.name << " at " << std::hexfloat << w.at;
  }
}

TEST(Trig, PowersOfTwoAndRandom) {
  for (const Case& c : kCases) {
    Worst w;
    for (int e = -149; e < 128; ++e) {
      const float p = std::ldexp(1.0f, e);
      for (float x : {p, -p, std::nextafter(p, 0.0f), std::nextafter(p, HUGE_VALF)}) w.take(c, x);
    }
    for (int i = 0; i < 1000000; ++i)
      w.take(c, metalsim::msl_test::uniform_real(float(-2 * M_PI), float(2 * M_PI)));
    EXPECT_LE(w.err, kPromisedUlp) << c.name << " at " << std::hexfloat << w.at;
  }
}

// Fast mode's bound (an absolute error of 2^-13 on [-pi, pi]) holds too: fast:: names the same
// functions.
TEST(Trig, FastModeAbsoluteBound) {
  double worst = 0.0;
  for (int i = 0; i < 200000; ++i) {
    const float x = metalsim::msl_test::uniform_real(float(-M_PI), float(M_PI));
    worst = std::max(worst, std::fabs(double(metal::fast::sin(x)) - std::sin(double(x))));
    worst = std::max(worst, std::fabs(double(metal::fast::cos(x)) - std::cos(double(x))));
  }
  EXPECT_LE(worst, 0x1p-13);
}

TEST(Trig, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float denorm_min = std::numeric_limits<float>::denorm_min();
  for (const Case& c : kCases)
    for (float x : {nan, -nan, inf, -inf})
      EXPECT_TRUE(std::isnan(c.f(x))) << c.name << "(" << x << ")";
  EXPECT_EQ(metal::sin(0.0f), 0.0f);
  EXPECT_FALSE(std::signbit(metal::sin(0.0f)));
  EXPECT_EQ(metal::sin(-0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(metal::sin(-0.0f)));
  EXPECT_TRUE(std::signbit(metal::tan(-0.0f)));
  EXPECT_EQ(metal::cos(0.0f), 1.0f);
  EXPECT_EQ(metal::cos(-0.0f), 1.0f);
  EXPECT_EQ(metal::sin(denorm_min), denorm_min);
  EXPECT_EQ(metal::sin(-denorm_min), -denorm_min);
  EXPECT_EQ(metal::cos(std::numeric_limits<float>::max()),
            float(std::cos(double(std::numeric_limits<float>::max()))));
}

// Loops over an array (which the kernel compiler vectorizes: msl_types_kernel_compiler_test) and
// calls through a pointer (never vectorized) give the same bits, as fibers and lane loops must;
// sincos gives the bits of sin and cos.
TEST(Trig, LoopAndScalarCallsAgreeBitForBit) {
  constexpr int kN = 4096;
  std::vector<float> x(kN), s(kN, -1.0f), c(kN, -1.0f);
  // Half moderate arguments, half any bit pattern (every binade, so every window of the reduction).
  for (int i = 0; i < kN; ++i)
    x[i] = i % 2 ? metalsim::msl_test::uniform_real(-1000.0f, 1000.0f)
                 : __builtin_bit_cast(float, uint32_t(metalsim::msl_test::rng()()));
  x[5] = -0.0f;
  x[6] = std::numeric_limits<float>::infinity();
  for (int i = 0; i < kN; ++i) {
    s[i] = metal::sin(x[i]);
    c[i] = metal::cos(x[i]);
  }
  std::vector<float> sc_sin(kN, -1.0f), sc_cos(kN, -1.0f);
  for (int i = 0; i < kN; ++i) sc_sin[i] = metal::sincos(x[i], sc_cos[i]);
  volatile Fn scalar_sin = kCases[0].f;
  volatile Fn scalar_cos = kCases[1].f;
  for (int i = 0; i < kN; ++i) {
    EXPECT_EQ(bits_of(s[i]), bits_of(scalar_sin(x[i]))) << std::hexfloat << x[i];
    EXPECT_EQ(bits_of(c[i]), bits_of(scalar_cos(x[i]))) << std::hexfloat << x[i];
    EXPECT_EQ(bits_of(sc_sin[i]), bits_of(s[i])) << std::hexfloat << x[i];
    EXPECT_EQ(bits_of(sc_cos[i]), bits_of(c[i])) << std::hexfloat << x[i];
  }
}

// Vectors are lane by lane; half computes in float and rounds once (within 1 ulp of half).
TEST(Trig, VectorsAndHalf) {
  const metal::float4 v(0.5f, -3.0f, 1e6f, -1e30f);
  const metal::float4 sv = metal::sin(v), cv = metal::cos(v);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(bits_of(sv[i]), bits_of(metal::sin(v[i])));
    EXPECT_EQ(bits_of(cv[i]), bits_of(metal::cos(v[i])));
  }
  metal::float4 cos_out(-1.0f);
  const metal::float4 sin_out = metal::sincos(v, cos_out);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(bits_of(sin_out[i]), bits_of(sv[i]));
    EXPECT_EQ(bits_of(cos_out[i]), bits_of(cv[i]));
  }
  for (const Case& c : kCases)
    for (int i = 0; i < 20000; ++i) {
      const metal::half h = metalsim::msl_test::random_half();
      const double want = c.model(double(float(h)));
      if (std::fabs(want) > 65504.0) continue;
      const float got = c.f(float(h));
      ASSERT_LE(
          metalsim::msl_test::ulp_half(float(metal::half(got)), float(metal::half(float(want)))),
          1.0)
          << c.name << "(" << float(h) << ")";
    }
}

// Every float, on 2 threads (350 s for the three in a release build): run by hand. Measured
// 2026-11-28: sin 0.5294, cos 0.5293, tan 0.5442 ulp at most.
TEST(Trig, DISABLED_EveryFloat) {
  for (const Case& c : kCases) {
    Worst part[2];
    std::thread half_range[2];
    for (int t = 0; t < 2; ++t)
      half_range[t] =
          std::thread([&, t] { part[t] = sweep_bits(c, t * 0x3fc00000u, (t + 1) * 0x3fc00000u); });
    for (std::thread& th : half_range) th.join();
    const Worst& w = part[0].err >= part[1].err ? part[0] : part[1];
    std::printf("%s: max %.4f ulp at %a\n", c.name, w.err, double(w.at));
    EXPECT_LE(w.err, kPromisedUlp) << c.name << " at " << std::hexfloat << w.at;
  }
}

}  // namespace
