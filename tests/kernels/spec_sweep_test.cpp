// Every spec, every case of its boundary sweep, against its reference with the checks on.
// A spec marked known_bug (an `_as_documented` kernel) must fail: the finding it records in
// docs/findings.md must still be reproduced.
#include <gtest/gtest.h>

#include "kernels/spec/spec.h"

namespace metalsim::spec {
namespace {

struct SweepCase {
  const KernelSpec* spec;
  Params params;
};

std::vector<SweepCase> all_cases() {
  std::vector<SweepCase> cases;
  for (const KernelSpec* s : SpecRegistry::all())
    for (const Params& p : s->sweep()) cases.push_back({s, p});
  return cases;
}

std::string test_name(const ::testing::TestParamInfo<SweepCase>& info) {
  std::string id = case_id(info.param.spec->name(), info.param.params);
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return id + "_" + std::to_string(info.index);
}

class SpecSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(SpecSweep, MatchesReferenceWithChecksOn) {
  const SweepCase& c = GetParam();
  RunOptions options;
  options.execution.checks = check::CheckSet::all();
  options.execution.checks.race = false;  // schedule fuzzing has its own test
  const CaseResult r = c.spec->run(c.params, options);
  const std::string id = case_id(c.spec->name(), c.spec->complete(c.params));
  if (c.spec->expectation() == Expectation::known_bug) {
    EXPECT_FALSE(r.passed) << id << " was expected to show: " << c.spec->known_bug();
    return;
  }
  std::string reports;
  for (const auto& rep : r.reports) reports += rep.format();
  EXPECT_TRUE(r.passed) << id << ": " << r.failure << "\n" << reports;
  EXPECT_EQ(r.unwritten, 0u) << id;
  EXPECT_EQ(r.non_finite, 0u) << id;
  EXPECT_LE(r.max_error, 1.0) << id << " worst: " << r.worst;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, SpecSweep, ::testing::ValuesIn(all_cases()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SpecSweep);

}  // namespace
}  // namespace metalsim::spec
