#pragma once
// One case of one spec, run the way every subcommand runs it: prepare, run the kernel, run the
// reference, compare, judge against the spec's expectation. With the `race` check on, the
// kernel is also run under the reversed and a seeded random schedule and the outputs compared
// bit for bit: a difference is a schedule-dependent result (race.schedule).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/spec/spec.h"

namespace metalsim::cli {

using spec::KernelSpec;
using spec::Params;

// What a case showed, against what its spec expects.
enum class Verdict { pass, fail, known_bug_reproduced, known_bug_not_reproduced };
std::string_view verdict_name(Verdict v);  // "pass", "FAIL", "known bug reproduced", ...
bool verdict_ok(Verdict v);                // pass or known bug reproduced
// A case of a known_bug spec is expected to fail (as tests/kernels/spec_sweep_test.cpp asks).
Verdict judge(const KernelSpec& spec, bool passed);

struct CaseRequest {
  const KernelSpec* spec = nullptr;
  Params params;                     // completed: every parameter present
  uint64_t seed = 1;                 // inputs
  engine::SchedulePolicy schedule;   // the main run
  check::CheckSet checks;            // race: also re-run under other schedules
  uint64_t race_seed = 1;            // the random schedule's seed for the race re-runs
  uint32_t workers = 0;
  double watchdog_seconds = 0;

  std::string id() const { return spec::case_id(spec->name(), params); }
};

struct CaseOutcome {
  CaseRequest request;
  spec::CaseResult result;
  Verdict verdict = Verdict::fail;
  std::string race;     // the schedule-dependent result, in words; empty when none
  double seconds = 0;   // wall time of every run of the case
};

CaseOutcome run_case(const CaseRequest& request);

// "sync,init,mem" ("none" when empty).
std::string checks_str(const check::CheckSet& checks);
// The command that reproduces the case: metalsim run 'id' --seed S --schedule P --checks C.
std::string repro_command(const CaseRequest& request);
// Shell-quoted for a POSIX shell.
std::string shell_quote(std::string_view text);
// A short name for what went wrong, stable while a failure is shrunk: the first report's
// check id, "unwritten", "non_finite", "error", "harness", "" when it passed.
std::string failure_kind(const spec::CaseResult& result);

// Resolves a filter: a case id with parameters, a spec name, a family, or a glob over names
// ("softmax*"). Empty `filters`: every spec's sweep.
struct SelectedCase {
  const KernelSpec* spec;
  Params params;  // completed
};
struct Selection {
  std::vector<SelectedCase> cases;
  std::vector<std::string> unmatched;  // filters that matched nothing
};
Selection select_sweep(const std::vector<std::string>& filters);
std::vector<const KernelSpec*> select_specs(const std::vector<std::string>& patterns);
bool spec_matches(const KernelSpec& spec, const std::string& pattern);

}  // namespace metalsim::cli
