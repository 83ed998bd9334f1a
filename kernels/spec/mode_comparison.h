#pragma once
// The two execution modes compared on one case (metalsim check, the sweep equivalence test):
// the case on fibers and in lane loops, both in-order, must write bit-identical outputs (in every
// math mode: cmake/MetalsimMathMode.cmake) and file the same checks; a
// difference is mode.divergent (docs/checks.md). The case runner runs them (CaseRunner::run with
// compare_modes); this says how each run is configured and how two runs' reports compare.
#include <string>

#include "kernels/spec/spec.h"
#include "simt/base/execution_options.h"

namespace metalsim::spec {

struct ModeRuns {
  metalsim::ExecutionOptions fibers;  // fibers, in-order, the run's checks but race
  metalsim::ExecutionOptions loops;   // auto, in-order, sync and mem only: lane loops wherever the
                                      // kernel has them (a kernel without runs on fibers)
  // The run the comparison started from already is one of the two (its outputs are reused).
  enum class Reuse { none, as_fibers, as_loops } reuse = Reuse::none;
};
ModeRuns mode_runs(const metalsim::ExecutionOptions& options);

// Empty when both runs filed the same checks (of the families both had on); else the
// difference, in words.
std::string report_difference(const CaseResult& fibers, const CaseResult& loops);

// True when a report says the dispatch was abandoned part way (a memory fault, an exception,
// the watchdog, a divergent barrier): where it stopped depends on the mode, so its outputs are
// not compared.
bool abandoned(const CaseResult& result);

}  // namespace metalsim::spec
