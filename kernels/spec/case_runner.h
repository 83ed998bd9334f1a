#pragma once
// The one way a case runs, for the tests, the metalsim program and the benchmarks alike:
// prepare it on the runner's device with the run's execution options (per command buffer), run
// the kernel, run the reference, compare, judge against the spec's expectation; with the race
// check on, the engine's race check watches the run (race.threadgroup, race.device) and the case
// runs again under the other schedules, without it, to compare the outputs byte for byte (a
// difference is race.schedule). A warning (barrier.exited) is kept in the result's reports and
// fails the case only when the options are strict (--strict, METALSIM_STRICT=1).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kernels/spec/case_context.h"
#include "kernels/spec/pipeline_cache.h"
#include "kernels/spec/shell_quote.h"
#include "kernels/spec/spec.h"
#include "kernels/spec/verdict.h"
#include "metalsim/Metal.hpp"

namespace metalsim::spec {

// One case: a spec, its parameters (completed) and the seed of its inputs.
struct Case {
  const KernelSpec* spec = nullptr;
  Params params;
  uint64_t seed = 1;
  std::string id() const { return case_id(spec->name(), params); }
};

struct CaseOutcome {
  Case subject;
  metalsim::ExecutionOptions options;
  CaseResult result;
  Judgement judgement;
  std::string race;             // the schedule-dependent result, in words; empty when none
  std::string mode_divergence;  // what fibers and lane loops did differently; empty when none
  double seconds = 0;           // wall time of every run of the case
  Verdict verdict() const { return judgement.verdict; }
};

class CaseRunner {
 public:
  CaseRunner();
  // One runner per process is enough (options travel with each command buffer); tests and the
  // program share it.
  static CaseRunner& shared();

  // `compare_modes`: the case also runs on fibers and in lane loops, in-order (one of the two
  // may be the run itself), and a difference of outputs or of checks filed is mode.divergent
  // (mode_comparison.h); metalsim check and the sweep equivalence test ask for it.
  CaseOutcome run(const Case& c, const metalsim::ExecutionOptions& options,
                  bool compare_modes = false);
  // A context to prepare cases by hand (benchmarks and traces time the parts of a run).
  std::unique_ptr<CaseContext> context(const metalsim::ExecutionOptions& options, uint64_t seed);
  // Runs a prepared case: kernel, reference, comparison, with both times.
  static CaseResult execute(PreparedCase& c);

 private:
  struct Run;
  Run run_once(const Case& c, const metalsim::ExecutionOptions& options);
  void check_schedules(const Case& c, const metalsim::ExecutionOptions& options, const Run& main,
                       CaseOutcome& out);
  void check_modes(const Case& c, const metalsim::ExecutionOptions& options, const Run& main,
                   CaseOutcome& out);

  NS::SharedPtr<MTL::Device> device_;
  NS::SharedPtr<MTL::CommandQueue> queue_;
  PipelineCache pipelines_;
};

// CaseRunner::shared().run() of one case, for tests that only need the result.
CaseResult run_case(const KernelSpec& spec, const Params& params,
                    const metalsim::ExecutionOptions& options, uint64_t seed = 1);

// The command that reproduces a case: metalsim run 'id' --seed S --schedule P --checks C --mode
// M [--strict].
std::string repro_command(const Case& c, const metalsim::ExecutionOptions& options);

}  // namespace metalsim::spec
