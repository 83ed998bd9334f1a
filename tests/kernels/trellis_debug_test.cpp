// METALSIM_DEBUG statistics of the trellis dispatches (the document's section 5.1) and the
// failure modes of section 5: out-of-range indices, NaN and extreme scales, sign vectors that
// are not +-1, the prefill kernel at M = 1, shape mismatches, threadgroup memory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "kernels/trellis/trellis_debug.h"
#include "tests/kernels/trellis_harness.h"

namespace metalsim::kernels::trellis {
namespace {

using testing::describe;
using testing::run_linear;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TrellisDebug, NothingIsLoggedWhenDebugIsOff) {
  std::string seen;
  DebugSink previous = set_debug_sink([&](const std::string& t) { seen += t; });
  set_debug_enabled(false);
  run_linear(make_gemm_problem({1, 32, 32, 3, 32, 0}, 1));
  set_debug_enabled(std::nullopt);
  set_debug_sink(std::move(previous));
  EXPECT_EQ(seen, "");
}

TEST(TrellisDebug, TheEnvironmentTurnsItOn) {
  const char* before = std::getenv("METALSIM_DEBUG");
  const std::string saved = before ? before : "";
  set_debug_enabled(std::nullopt);
  ::setenv("METALSIM_DEBUG", "1", 1);
  EXPECT_TRUE(debug_enabled());
  ::setenv("METALSIM_DEBUG", "0", 1);
  EXPECT_FALSE(debug_enabled());
  ::unsetenv("METALSIM_DEBUG");
  EXPECT_FALSE(debug_enabled());
  if (before) ::setenv("METALSIM_DEBUG", saved.c_str(), 1);  // as the run found it
}

TEST(TrellisDebug, PreDispatchBlockHasEverySection51Line) {
  const GemmProblem p = make_gemm_problem({1, 40, 72, 3, 32, 0}, 1);
  DebugCapture capture;
  ASSERT_TRUE(run_linear(p).result.passed);
  const std::string& t = capture.text();
  EXPECT_TRUE(has(t, "=== gemm_trellis_packed_decode PRE-DISPATCH ===\n")) << t;
  EXPECT_TRUE(has(t,
                  "dispatch: M=1, K=40, N=72, bits=3, group_size=32, n_levels=8, grid=[1, 1, 1], "
                  "threadgroup=[128, 1, 1], threadgroup_memory=5120 bytes\n"))
      << t;
  const ValueStats a = value_stats(p.a);
  char line[128];
  std::snprintf(line, sizeof line, "A: min=%.6g, max=%.6g, has_nan=False\n", a.min, a.max);
  EXPECT_TRUE(has(t, line)) << t;
  std::string bytes;
  for (int i = 0; i < 10; ++i) bytes += (i ? ", " : "") + std::to_string(p.weights.packed[i]);
  EXPECT_TRUE(
      has(t, "packed_indices: shape=[3, 5, 96], first_10_bytes=[" + bytes + "], out_of_range=0\n"))
      << t;
  EXPECT_TRUE(has(t, "scales: min=")) << t;
  EXPECT_TRUE(has(t, "grid: values=[-0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0]\n")) << t;
  EXPECT_TRUE(has(t, "su: min=-1.0, max=1.0, unique=[-1.0, 1.0]\n")) << t;
  EXPECT_TRUE(has(t, "sv: min=-1.0, max=1.0, unique=[-1.0, 1.0]\n")) << t;
  EXPECT_FALSE(has(t, "WARNING")) << t;
}

TEST(TrellisDebug, EachDispatchNamesTheKernelForwardChose) {
  DebugCapture capture;
  run_linear(make_gemm_problem({16, 32, 32, 2, 32, 0}, 1));
  run_linear(make_gemm_problem({17, 32, 32, 2, 32, 0}, 1));
  EXPECT_TRUE(
      has(capture.text(), "=== gemm_trellis_packed_decode PRE-DISPATCH ===\ndispatch: M=16,"))
      << capture.text();
  EXPECT_TRUE(has(capture.text(), "=== gemm_trellis_packed PRE-DISPATCH ===\ndispatch: M=17,"))
      << capture.text();
  EXPECT_TRUE(has(capture.text(), "threadgroup_memory=9216 bytes")) << capture.text();
}

// ------------------------------ section 5.4: the prefill kernel at M = 1

TEST(TrellisFailureModes, ThePrefillKernelAtMEquals1IsAWarning) {
  const GemmProblem p = make_gemm_problem({1, 32, 32, 4, 32, 0}, 1);
  DebugCapture capture;
  EXPECT_TRUE(run_linear(p, TrellisKernel::prefill).result.passed);
  EXPECT_TRUE(has(capture.text(),
                  "WARNING: M = 1 runs gemm_trellis_packed, the prefill kernel (64x64 tiles); "
                  "M <= 16 is the decode kernel's (section 5.4, wrong kernel selection)\n"))
      << capture.text();
}

// ------------------------------ section 5.1: codebook index overflow

TEST(TrellisFailureModes, OutOfRangeIndicesAreCountedAndReadGridZero) {
  const GemmProblem p =
      make_gemm_problem({5, 48, 40, 4, 32, 11}, 2);  // grid of 11 for 4-bit indices
  size_t expected = 0;
  for (uint8_t idx : unpack_indices(p.weights.shape, p.weights.packed)) expected += idx >= 11;
  ASSERT_GT(expected, 0u);
  DebugCapture capture;
  const testing::Run run = run_linear(p);
  EXPECT_TRUE(run.result.passed) << describe(run);  // the reference reads grid[0] for them too
  EXPECT_TRUE(has(capture.text(), "out_of_range=" + std::to_string(expected) + "\n"))
      << capture.text();
  EXPECT_TRUE(
      has(capture.text(),
          "WARNING: " + std::to_string(expected) +
              " indices are >= n_levels = 11; the kernel clamps them to index 0, grid[0] = -0.875"))
      << capture.text();
}

// The clamp is what the kernel does, not an accident of the reference: with every index out of
// range, every weight is grid[0] * scale * su * sv.
TEST(TrellisFailureModes, EveryIndexOutOfRangeGivesGridZeroEverywhere) {
  GemmProblem p = make_gemm_problem({2, 16, 16, 2, 16, 0}, 3);
  std::fill(p.weights.packed.begin(), p.weights.packed.end(), 0xFF);  // every index 3
  p.weights.shape.n_levels = 3;
  p.weights.grid = {0.25f, 0.5f, 0.75f};
  const testing::Run run = run_linear(p);
  ASSERT_TRUE(run.result.passed) << describe(run);
  for (uint32_t n = 0; n < 16; ++n) {
    double expected = 0;
    for (uint32_t k = 0; k < 16; ++k)
      expected += double(p.a[k]) *
                  double(half_t(0.25f * p.weights.scales[n] * p.weights.su[k] * p.weights.sv[n]));
    EXPECT_NEAR(double(run.out[n]), expected, 2e-3 * std::fabs(expected) + 1e-4) << "column " << n;
  }
}

// ------------------------------ section 5.1: scale explosion

TEST(TrellisFailureModes, ANaNScaleIsReportedAndReachesOnlyItsGroupsColumn) {
  GemmProblem p = make_gemm_problem({3, 64, 24, 3, 32, 0}, 4);
  p.weights.scales[1 * 24 + 5] = NAN;  // group 1 (rows 32..63), column 5
  DebugCapture capture;
  const testing::Run run = run_linear(p);
  EXPECT_TRUE(has(capture.text(), "has_nan=True")) << capture.text();
  EXPECT_TRUE(has(capture.text(), "WARNING: scales hold 1 NaN and 0 infinite values"))
      << capture.text();
  for (uint32_t m = 0; m < 3; ++m)
    for (uint32_t n = 0; n < 24; ++n)
      EXPECT_EQ(std::isnan(double(run.out[m * 24 + n])), n == 5) << "C[" << m << ", " << n << "]";
}

TEST(TrellisFailureModes, AScaleBeyondHalfsRangeIsReported) {
  GemmProblem p = make_gemm_problem({1, 32, 16, 4, 32, 0}, 5);
  p.weights.scales[7] = 1.0e5f;
  DebugCapture capture;
  const testing::Run run = run_linear(p);
  EXPECT_TRUE(
      has(capture.text(),
          "WARNING: max |scale| x max |grid| = 100000.0 exceeds half's largest value, 65504"))
      << capture.text();
  EXPECT_FALSE(std::isfinite(double(run.out[7])));  // 1e5 * grid overflows the half staging
}

// ------------------------------ section 5.1: sign vector corruption

TEST(TrellisFailureModes, SignVectorsThatAreNotPlusMinusOneAreReported) {
  GemmProblem p = make_gemm_problem({2, 32, 16, 2, 32, 0}, 6);
  p.weights.su[3] = 0.5f;
  p.weights.sv[9] = 0.0f;
  DebugCapture capture;
  const testing::Run run = run_linear(p);
  EXPECT_TRUE(run.result.passed) << describe(run);  // the formula holds for any signs
  EXPECT_TRUE(has(capture.text(), "su: min=-1.0, max=1.0, unique=[-1.0, 0.5, 1.0]\n"))
      << capture.text();
  EXPECT_TRUE(has(capture.text(), "WARNING: su holds 1 values other than +-1 (first: su[3] = 0.5)"))
      << capture.text();
  EXPECT_TRUE(has(capture.text(), "WARNING: sv holds 1 values other than +-1 (first: sv[9] = 0.0)"))
      << capture.text();
}

TEST(TrellisFailureModes, NaNActivationsAreReported) {
  GemmProblem p = make_gemm_problem({2, 32, 16, 2, 32, 0}, 7);
  p.a[40] = half_t(NAN);
  DebugCapture capture;
  run_linear(p);
  EXPECT_TRUE(has(capture.text(), "has_nan=True\nWARNING: A holds NaN or infinite values\n"))
      << capture.text();
}

// ------------------------------ section 5.2: incorrect dimensions

TEST(TrellisFailureModes, MismatchedShapesAreRejectedBeforeAnythingRuns) {
  GemmProblem p = make_gemm_problem({2, 50, 40, 3, 32, 0}, 8);
  p.weights.scales_dims[0] = 1;
  p.weights.scales.resize(40);
  try {
    TrellisLinear linear(testing::device(), p.weights);
    FAIL() << "accepted scales of one group for K = 50, group_size = 32";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "TrellisLinear: scales.shape[0] = n_groups = 1, but ceil(K / group_size) = 2 for "
                 "K = 50, group_size = 32");
  }
}

TEST(TrellisFailureModes, ActivationsOfTheWrongWidthAreRejected) {
  const GemmProblem p = make_gemm_problem({2, 32, 16, 2, 32, 0}, 9);
  TrellisLinear linear(testing::device(), p.weights);
  const std::vector<half_t> x(33);
  EXPECT_THROW(linear.forward(testing::queue(), x), std::invalid_argument);
  const std::vector<half_t> y =
      linear.forward(testing::queue(), std::vector<half_t>(64, half_t(0)));
  EXPECT_EQ(y, std::vector<half_t>(32, half_t(0)));  // two rows of zeros
}

// ------------------------------ section 5.3: threadgroup memory

TEST(TrellisFailureModes, ThreadgroupMemoryIsTheDocumentsBudgetAndUnderTheLimit) {
  const ThreadgroupBudget prefill = threadgroup_budget(testing::device(), TrellisKernel::prefill);
  EXPECT_EQ(prefill.declared, 9216u);
  EXPECT_EQ(prefill.computed, prefill.declared);
  EXPECT_EQ(prefill.documented, prefill.declared);
  EXPECT_LE(prefill.declared, prefill.limit);
  const ThreadgroupBudget decode = threadgroup_budget(testing::device(), TrellisKernel::decode);
  EXPECT_EQ(decode.declared, 5120u);
  EXPECT_EQ(decode.computed, decode.declared);
  EXPECT_LE(decode.declared, decode.limit);
  EXPECT_EQ(threadgroup_budget(testing::device(), TrellisKernel::prefill_as_documented).declared,
            9216u);
}

}  // namespace
}  // namespace metalsim::kernels::trellis
