// Every spec, every case of its boundary sweep, on fibers and in lane loops (docs/lanes.md): the
// in-order outputs of the two modes must be bit-identical, and the checks they file the same
// (the case runner's mode comparison, mode.divergent). Kernels are built with safe math, so
// the two compiled forms of a kernel round alike (docs/lanes.md, "Math mode").
#include <gtest/gtest.h>

#include <optional>

#include "kernels/spec/case_runner.h"
#include "simt/engine/dispatch.h"
#include "tests/support/sweep_cases.h"

namespace metalsim::spec {
namespace {

class ModeEquivalence : public ::testing::TestWithParam<SweepCase> {};

TEST_P(ModeEquivalence, LaneLoopsAndFibersWriteTheSameBytes) {
  const SweepCase& c = GetParam();
  // auto, in-order, the checks lane loops support: the run itself is in lane loops, and the
  // comparison runs it again on fibers.
  metalsim::ExecutionOptions options;
  options.checks = metalsim::CheckSet::none();
  options.checks.sync = options.checks.mem = true;
  const Case subject{c.spec, c.spec->complete(c.params), 1};
  const uint64_t loops_before = engine::lane_loop_threadgroups_total();
  const CaseOutcome out = CaseRunner::shared().run(subject, options, /*compare_modes=*/true);
  const std::string id = subject.id();
  // A dispatch the host refuses (a limit.* finding, e.g. too much threadgroup memory) runs no
  // threadgroup in either mode; every other case must have run in lane loops.
  const std::optional<Finding> finding = c.spec->finding_for(subject.params);
  if (!finding || finding->kind.rfind("limit.", 0) != 0) {
    EXPECT_GT(engine::lane_loop_threadgroups_total(), loops_before)
        << id << ": no threadgroup ran in lane loops";
  }
  EXPECT_EQ(out.mode_divergence, "") << id;
  if (c.spec->expectation() == Expectation::pass) {
    EXPECT_TRUE(out.result.passed) << id << ": " << out.result.failure;
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernels, ModeEquivalence, ::testing::ValuesIn(all_sweep_cases()),
                         sweep_case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ModeEquivalence);

}  // namespace
}  // namespace metalsim::spec
