// Softmax family: the corrected kernel over threadgroup sizes that are not powers of two,
// and fully masked rows.
#include <gtest/gtest.h>

#include "kernels/softmax/softmax_ref.h"
#include "kernels/spec/case_runner.h"

namespace metalsim::kernels::softmax {
namespace {

metalsim::ExecutionOptions checked() {
  metalsim::ExecutionOptions o;
  o.checks = metalsim::CheckSet::all();
  o.checks.race = false;
  return o;
}

TEST(Softmax, AnyThreadgroupSizeAndMaskedRows) {
  const spec::KernelSpec* s = spec::SpecRegistry::find("softmax");
  ASSERT_NE(s, nullptr);
  for (int64_t tg : {3, 5, 96, 100, 513})
    for (int64_t fill : {0, 1, 2}) {
      const auto r =
          spec::run_case(*s, {{"rows", 2}, {"cols", 300}, {"tg", tg}, {"fill", fill}}, checked());
      EXPECT_TRUE(r.passed) << "tg=" << tg << " fill=" << fill << ": " << r.failure;
    }
}

TEST(SoftmaxReference, AllMinusInfinityRowIsZeros) {
  const auto ninf = half_t(-std::numeric_limits<float>::infinity());
  const auto out = softmax_ref({ninf, ninf, half_t(0), ninf}, 2, 2);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_EQ(out[1], 0.0);
  EXPECT_EQ(out[2], 1.0);
  EXPECT_EQ(out[3], 0.0);
}

TEST(SoftmaxAsDocumented, Tg256StillReadsAnOverwrittenMax) {
  const spec::KernelSpec* s = spec::SpecRegistry::find("softmax_as_documented");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(spec::run_case(*s, {{"rows", 1}, {"cols", 2}, {"tg", 256}}, checked()).passed);
  EXPECT_TRUE(spec::run_case(*s, {{"rows", 3}, {"cols", 1}, {"tg", 256}}, checked())
                  .passed);  // one element: no race
}

}  // namespace
}  // namespace metalsim::kernels::softmax
