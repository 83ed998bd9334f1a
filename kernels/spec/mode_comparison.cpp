#include "kernels/spec/mode_comparison.h"

#include <set>

#include "simt/engine/execution_mode.h"

namespace metalsim::spec {
namespace {

// The checks both runs can file: init runs only on fibers, race on neither.
bool compared(report::CheckId id) {
  const metalsim::CheckFamily f = report::check_family(id);
  return f == metalsim::CheckFamily::sync || f == metalsim::CheckFamily::mem ||
         f == metalsim::CheckFamily::api;
}

std::string names(const std::set<std::string>& ids) {
  if (ids.empty()) return "none";
  std::string s;
  for (const std::string& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

std::set<std::string> compared_checks(const CaseResult& r) {
  std::set<std::string> ids;
  for (const report::Report& rep : r.reports)
    if (compared(rep.check)) ids.insert(std::string(report::check_name(rep.check)));
  return ids;
}

}  // namespace

ModeRuns mode_runs(const metalsim::ExecutionOptions& options) {
  ModeRuns m;
  const metalsim::SchedulePolicy in_order{metalsim::ScheduleKind::in_order, 0};
  m.fibers = options;
  m.fibers.mode = metalsim::ExecutionMode::fibers;
  m.fibers.schedule = in_order;
  m.fibers.checks.race = false;
  m.loops = options;
  m.loops.mode = metalsim::ExecutionMode::automatic;
  m.loops.schedule = in_order;
  m.loops.checks.init = false;
  m.loops.checks.race = false;
  if (!(options.schedule == in_order)) return m;
  m.reuse =
      engine::runs_on_fibers(options) ? ModeRuns::Reuse::as_fibers : ModeRuns::Reuse::as_loops;
  return m;
}

std::string report_difference(const CaseResult& fibers, const CaseResult& loops) {
  const std::set<std::string> f = compared_checks(fibers), l = compared_checks(loops);
  if (f == l) return {};
  return "fibers report " + names(f) + "; lane loops report " + names(l);
}

bool abandoned(const CaseResult& result) {
  for (const report::Report& r : result.reports) {
    switch (r.check) {
      case report::CheckId::stack_overflow:
      case report::CheckId::bounds_device:
      case report::CheckId::bounds_threadgroup:
      case report::CheckId::kernel_fault:
      case report::CheckId::kernel_exception:
      case report::CheckId::watchdog_timeout:
      case report::CheckId::barrier_divergent:
      case report::CheckId::sync_deadlock:
      case report::CheckId::limit_threadgroup_memory:
      case report::CheckId::mode_unavailable: return true;
      default: break;
    }
  }
  return !result.failure.empty() && result.failure.rfind("harness error", 0) == 0;
}

}  // namespace metalsim::spec
