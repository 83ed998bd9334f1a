// Every spec, every case of its boundary sweep, against its reference with the checks on.
// A spec marked known_bug (an `_as_documented` kernel) must fail with the finding it records for
// the case (docs/findings.md): the same check, or the same kind of mismatch.
#include <gtest/gtest.h>

#include "kernels/spec/case_runner.h"
#include "tests/support/sweep_cases.h"

namespace metalsim::spec {
namespace {

class SpecSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(SpecSweep, MatchesReferenceWithChecksOn) {
  const SweepCase& c = GetParam();
  metalsim::ExecutionOptions options;
  options.checks = metalsim::CheckSet::all();
  options.checks.race = false;  // schedule fuzzing has its own test
  const Case subject{c.spec, c.spec->complete(c.params), 1};
  const CaseOutcome out = CaseRunner::shared().run(subject, options);
  const CaseResult& r = out.result;
  const std::string id = subject.id();
  if (c.spec->expectation() == Expectation::known_bug) {
    // The finding this case records, of the kind recorded: a failure of another kind is not it.
    ASSERT_TRUE(c.spec->finding_for(c.params).has_value())
        << id << ": a known-bug sweep case records no finding";
    EXPECT_EQ(out.verdict(), Verdict::known_bug_reproduced)
        << id << ": " << out.judgement.why << "; failure: " << r.failure;
    return;
  }
  std::string reports;
  for (const auto& rep : r.reports) reports += rep.format();
  EXPECT_TRUE(r.passed) << id << ": " << r.failure << "\n" << reports;
  EXPECT_EQ(r.unwritten, 0u) << id;
  EXPECT_EQ(r.non_finite, 0u) << id;
  EXPECT_LE(r.max_error, 1.0) << id << " worst: " << r.worst;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, SpecSweep, ::testing::ValuesIn(all_sweep_cases()),
                         sweep_case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SpecSweep);

}  // namespace
}  // namespace metalsim::spec

namespace metalsim::spec {
namespace {

// The fuzzer's memory budget and the runner's refusal of cases that cannot fit rely on it.
TEST(SpecFootprint, EverySpecEstimatesTheMemoryOfItsCases) {
  for (const KernelSpec* s : SpecRegistry::all())
    for (const Params& p : s->sweep())
      EXPECT_TRUE(s->footprint(s->complete(p)).known()) << case_id(s->name(), s->complete(p));
}

}  // namespace
}  // namespace metalsim::spec
