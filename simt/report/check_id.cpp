#include "simt/report/check_id.h"

#include <cstdlib>

namespace metalsim::report {
namespace {

struct Row {
  std::string_view name;
  std::string_view meaning;
  CheckFamily family;
};

constexpr Row kRows[] = {
#define METALSIM_CHECK_ROW(e, id, fam, what) {id, what, CheckFamily::fam},
    METALSIM_CHECKS(METALSIM_CHECK_ROW)
#undef METALSIM_CHECK_ROW
};

}  // namespace

std::string_view check_name(CheckId id) { return kRows[static_cast<int>(id)].name; }
std::string_view check_meaning(CheckId id) { return kRows[static_cast<int>(id)].meaning; }
CheckFamily check_family(CheckId id) { return kRows[static_cast<int>(id)].family; }

std::string_view severity_name(Severity s) { return s == Severity::warning ? "warning" : "error"; }

// A barrier after some threads returned runs to its end on Apple GPUs (they release the threads
// still running); the MSL specification does not promise it, so it is a portability warning.
Severity check_severity(CheckId id) {
  return id == CheckId::barrier_exited ? Severity::warning : Severity::error;
}

bool check_from_name(std::string_view name, CheckId& out) {
  for (size_t i = 0; i < std::size(kRows); ++i)
    if (kRows[i].name == name) {
      out = static_cast<CheckId>(i);
      return true;
    }
  return false;
}

bool check_implemented(CheckId id) {
  // ThreadSanitizer's (tsan preset) or the shadow racecheck of the access-check pass.
#if defined(METALSIM_RACECHECK) || defined(METALSIM_ACCESS_CHECKS)
  constexpr bool racecheck = true;
#else
  constexpr bool racecheck = false;
#endif
#if defined(METALSIM_ACCESS_CHECKS) && !defined(METALSIM_RACECHECK)
  constexpr bool shadow_racecheck = true;
#else
  constexpr bool shadow_racecheck = false;
#endif
  switch (id) {
    case CheckId::race_threadgroup:
    case CheckId::race_device: return racecheck;
    // Only the shadow racecheck: ThreadSanitizer sees dispatches ordered, as metalsim runs them.
    case CheckId::race_dispatch: return shadow_racecheck;
    default: return true;
  }
}

}  // namespace metalsim::report
