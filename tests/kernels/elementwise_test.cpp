// Element-wise family: the in-place "never written" check, and the Gemma (1 + weight) form
// against the Llama form with the weight shifted by one on the host.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/elementwise/elementwise_ref.h"
#include "kernels/spec/case_runner.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::kernels {
namespace {

using spec::CaseResult;
using spec::half_t;

metalsim::ExecutionOptions checked() {
  metalsim::ExecutionOptions o;
  o.checks = metalsim::CheckSet::all();
  o.checks.race = false;
  return o;
}

TEST(ElementwiseInPlace, AnElementStillHoldingItsInputCountsAsUnwritten) {
  const std::vector<half_t> original{half_t(1), half_t(2), half_t(0)};
  const std::vector<double> ref{0.5, 2.0, 0.0};  // element 0 should change; 1 and 2 need not
  const std::vector<half_t> got = original;
  CaseResult r;
  spec::compare_in_place("x", got.data(), original, ref, {0, 0x1p-11, ""}, r);
  EXPECT_EQ(r.unwritten, 1u);
  EXPECT_EQ(r.worst, "x[0] was never written");
}

// The fuzz case of issue 14: the kernel's value equals its input bits, the double reference
// rounds to the neighbouring half, and the input is within the tolerance. That is a correct
// output, never "unwritten".
TEST(ElementwiseInPlace, AValueThatRoundsBackToItsInputWithinToleranceIsNotUnwritten) {
  const half_t x = half_t(0.7001953125);  // a half
  uint16_t bits = 0;
  std::memcpy(&bits, &x, 2);
  ++bits;  // the next half up
  half_t up;
  std::memcpy(&up, &bits, 2);
  const double next = double(up);
  const std::vector<half_t> original{x, half_t(3)};
  const std::vector<double> ref{double(x) + 0.7 * (next - double(x)), 3.0};  // rounds to `next`
  const std::vector<half_t> got = original;
  CaseResult r;
  spec::compare_in_place("k", got.data(), original, ref, {0, 0x1p-11, ""}, r);
  EXPECT_EQ(r.unwritten, 0u) << r.worst;
  EXPECT_LE(r.max_error, 1.0);
}

TEST(RmsNorm, PlusOneFormEqualsLlamaFormWithWeightPlusOne) {
  const std::vector<half_t> x{half_t(1), half_t(-2), half_t(3), half_t(0.5)};
  const std::vector<half_t> w{half_t(0.25), half_t(-0.5), half_t(0), half_t(1)};
  std::vector<half_t> w1;
  for (half_t v : w) w1.push_back(half_t(float(v) + 1));
  const auto a = elementwise::rms_norm_ref(x, w, 1, 4, 1e-6, 1.0);
  const auto b = elementwise::rms_norm_ref(x, w1, 1, 4, 1e-6, 0.0);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_DOUBLE_EQ(a[i], b[i]) << i;
}

TEST(Rope, EveryThreadgroupSizeMatchesTheReference) {
  const spec::KernelSpec* s = spec::SpecRegistry::find("rope");
  ASSERT_NE(s, nullptr);
  for (int64_t tg : {1, 7, 32, 64}) {
    const auto r = spec::run_case(
        *s,
        {{"seq", 2}, {"q_heads", 3}, {"kv_heads", 1}, {"head_dim", 16}, {"offset", 5}, {"tg", tg}},
        checked());
    EXPECT_TRUE(r.passed) << "tg=" << tg << ": " << r.failure;
  }
}

TEST(RmsNormAsDocumented, IsRightAtItsOwnThreadgroupSize) {
  const spec::KernelSpec* s = spec::SpecRegistry::find("rms_norm_as_documented");
  ASSERT_NE(s, nullptr);
  const auto r = spec::run_case(*s, {{"rows", 2}, {"hidden", 1000}, {"tg", 256}}, checked());
  EXPECT_TRUE(r.passed) << r.failure;
}

}  // namespace
}  // namespace metalsim::kernels
