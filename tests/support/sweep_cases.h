#pragma once
// Every spec's boundary sweep as gtest parameters, for the suites that run each sweep case
// (spec_sweep_test, mode_equivalence_test).
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "kernels/spec/case_runner.h"

namespace metalsim::spec {

struct SweepCase {
  const KernelSpec* spec;
  Params params;
};

inline std::vector<SweepCase> all_sweep_cases() {
  std::vector<SweepCase> cases;
  for (const KernelSpec* s : SpecRegistry::all())
    for (const Params& p : s->sweep()) cases.push_back({s, p});
  return cases;
}

// The case id with every character gtest does not allow in a name replaced, plus the index.
inline std::string sweep_case_name(const ::testing::TestParamInfo<SweepCase>& info) {
  std::string id = case_id(info.param.spec->name(), info.param.params);
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return id + "_" + std::to_string(info.index);
}

}  // namespace metalsim::spec
