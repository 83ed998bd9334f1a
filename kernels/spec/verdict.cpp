#include "kernels/spec/verdict.h"

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
  if (!r.reports.empty()) return std::string(check::check_name(r.reports.front().check));
  if (r.failure.rfind("harness error", 0) == 0) return "harness";
  if (r.failure.rfind("invalid case", 0) == 0) return "invalid";
  if (r.unwritten > 0) return "unwritten";
  if (r.non_finite > 0) return "non_finite";
  return "mismatch";
}

namespace {

// A finding recorded as a check that this run did not turn on cannot show as that check.
bool finding_observable(const Finding& f, const check::CheckSet& checks) {
  check::CheckId id;
  return !check::check_from_name(f.kind, id) || checks.enabled(check::check_family(id));
}

}  // namespace

Judgement judge(const KernelSpec& spec, const Params& params, const CaseResult& result,
                const check::CheckSet& checks) {
  if (spec.expectation() == Expectation::pass)
    return {result.passed ? Verdict::pass : Verdict::fail, {}};
  if (result.passed) return {Verdict::known_bug_not_reproduced, "the case passed"};
  const std::optional<Finding> finding = spec.finding_for(params);
  const std::string kind = failure_kind(result);
  if (finding && finding_observable(*finding, checks) && finding->kind != kind)
    return {Verdict::known_bug_not_reproduced, "expected the recorded finding '" + finding->kind +
                                                   "' (" + finding->what + "), saw '" + kind + "'"};
  return {Verdict::known_bug_reproduced, {}};
}

}  // namespace metalsim::spec
