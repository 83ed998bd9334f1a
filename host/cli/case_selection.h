#pragma once
// Which cases a subcommand runs: a filter is a case id with parameters, a spec name (that spec
// alone), a family (unless a spec has the same name), or a glob over names ("softmax*").
// Running them is the case runner's (kernels/spec/).
#include <string>
#include <vector>

#include "kernels/spec/case_runner.h"

namespace metalsim::cli {

using spec::Case;
using spec::CaseOutcome;
using spec::KernelSpec;
using spec::Params;
using spec::Verdict;

struct SelectedCase {
  const KernelSpec* spec;
  Params params;  // completed
};
struct Selection {
  std::vector<SelectedCase> cases;
  std::vector<std::string> unmatched;  // filters that matched nothing
};
// Empty `filters`: every spec's sweep.
Selection select_sweep(const std::vector<std::string>& filters);
std::vector<const KernelSpec*> select_specs(const std::vector<std::string>& patterns);
bool spec_matches(const KernelSpec& spec, const std::string& pattern);

// The program's runs all go through the one runner.
inline CaseOutcome run_case(const Case& c, const metalsim::ExecutionOptions& options) {
  return spec::CaseRunner::shared().run(c, options);
}

}  // namespace metalsim::cli
