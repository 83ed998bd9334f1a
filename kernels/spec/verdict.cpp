#include "kernels/spec/verdict.h"

#include <algorithm>
#include <string>
#include <vector>

namespace metalsim::spec {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "FAIL";
    case Verdict::known_bug_reproduced: return "known bug reproduced";
    case Verdict::known_bug_not_reproduced: return "known bug NOT reproduced";
  }
  return "?";
}

bool verdict_ok(Verdict v) { return v == Verdict::pass || v == Verdict::known_bug_reproduced; }

std::string failure_kind(const CaseResult& r) {
  if (r.passed) return {};
  if (const report::Report* error = report::first_error(r.reports))
    return std::string(report::check_name(error->check));
  if (r.failure.rfind("harness error", 0) == 0) return "harness";
  if (r.failure.rfind("invalid case", 0) == 0) return "invalid";
  if (r.unwritten > 0) return "unwritten";
  if (r.non_finite > 0) return "non_finite";
  // A warning that failed the case under --strict (the failure starts with its check id).
  for (const report::Report& w : r.reports)
    if (r.failure.rfind(report::check_name(w.check), 0) == 0)
      return std::string(report::check_name(w.check));
  return "mismatch";
}

namespace {

// Every way a failed case failed: its reports' checks, and its comparison's own kinds where the
// outputs were wrong too. The engine's race check may name the cause of a recorded mismatch
// (softmax_as_documented's row_max read while thread 0 overwrites it is race.threadgroup, and
// still a mismatch): a recorded finding is reproduced when it is among them.
std::vector<std::string> failure_kinds(const CaseResult& r) {
  std::vector<std::string> kinds;
  for (const report::Report& report : r.reports)
    kinds.emplace_back(report::check_name(report.check));
  if (r.unwritten > 0) kinds.emplace_back("unwritten");
  if (r.non_finite > 0) kinds.emplace_back("non_finite");
  if (r.max_error > 1) kinds.emplace_back("mismatch");
  kinds.push_back(failure_kind(r));
  return kinds;
}

// A finding recorded as a check that this run did not turn on cannot show as that check.
bool finding_observable(const Finding& f, const metalsim::CheckSet& checks) {
  report::CheckId id;
  return !report::check_from_name(f.kind, id) || checks.enabled(report::check_family(id));
}

}  // namespace

Judgement judge(const KernelSpec& spec, const Params& params, const CaseResult& result,
                const metalsim::CheckSet& checks) {
  if (spec.expectation() == Expectation::pass)
    return {result.passed ? Verdict::pass : Verdict::fail, {}};
  if (result.passed) return {Verdict::known_bug_not_reproduced, "the case passed"};
  const std::optional<Finding> finding = spec.finding_for(params);
  const std::vector<std::string> kinds = failure_kinds(result);
  if (finding && finding_observable(*finding, checks) &&
      std::find(kinds.begin(), kinds.end(), finding->kind) == kinds.end())
    return {Verdict::known_bug_not_reproduced, "expected the recorded finding '" + finding->kind +
                                                   "' (" + finding->what + "), saw '" +
                                                   failure_kind(result) + "'"};
  return {Verdict::known_bug_reproduced, {}};
}

}  // namespace metalsim::spec
