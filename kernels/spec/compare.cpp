#include "kernels/spec/compare.h"

#include <string>

namespace metalsim::spec {

void finish(CaseResult& result) {
  std::string why;
  // A warning (barrier.exited) does not fail a case: the kernel ran to its end and its outputs
  // are judged; CaseRunner::run fails it under --strict.
  if (const report::Report* error = report::first_error(result.reports))
    why = std::string(report::check_name(error->check)) + ": " + error->message;
  else if (result.unwritten > 0)
    why =
        std::to_string(result.unwritten) + " output elements never written (" + result.worst + ")";
  else if (result.non_finite > 0)
    why = std::to_string(result.non_finite) + " non-finite outputs (" + result.worst + ")";
  else if (result.max_error > 1)
    why = "error " + std::to_string(result.max_error) + "x the tolerance at " + result.worst;
  else if (result.elements == 0) why = "no output was compared";
  result.passed = why.empty();
  if (result.failure.empty()) result.failure = why;
}

}  // namespace metalsim::spec
