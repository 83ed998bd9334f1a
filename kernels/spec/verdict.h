#pragma once
// What a case showed, against what its spec expects: a corrected kernel must pass; a known-bug
// (`_as_documented`) kernel must fail, and where its spec records the finding for the case, fail
// with that finding's kind.
#include <string>
#include <string_view>

#include "kernels/spec/spec.h"

namespace metalsim::spec {

enum class Verdict { pass, fail, known_bug_reproduced, known_bug_not_reproduced };
std::string_view verdict_name(Verdict v);  // "pass", "FAIL", "known bug reproduced", ...
bool verdict_ok(Verdict v);                // pass or known bug reproduced

// A short name for what went wrong, stable while a failure is shrunk: the first error report's
// check id ("bounds.device"), "unwritten", "non_finite", "mismatch", "harness", "invalid", else
// the first warning's check id (a case --strict failed on a warning alone); "" when the case
// passed.
std::string failure_kind(const CaseResult& result);

struct Judgement {
  Verdict verdict = Verdict::fail;
  std::string why;  // for known_bug_not_reproduced: what was expected and what was seen
};
// `params` completed; `checks`: the families that were on (a finding recorded as a check whose
// family was off may show as any failure).
Judgement judge(const KernelSpec& spec, const Params& params, const CaseResult& result,
                const metalsim::CheckSet& checks);

}  // namespace metalsim::spec
