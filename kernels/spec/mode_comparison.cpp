#include "kernels/spec/mode_comparison.h"

#include <set>

#include "simt/engine/execution_mode.h"

namespace metalsim::spec {
namespace {

// The checks both runs can file: init runs only on fibers, race on neither.
bool compared(check::CheckId id) {
  const check::Family f = check::check_family(id);
  return f == check::Family::sync || f == check::Family::mem || f == check::Family::api;
}

std::string names(const std::set<std::string>& ids) {
  if (ids.empty()) return "none";
  std::string s;
  for (const std::string& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

std::set<std::string> compared_checks(const CaseResult& r) {
  std::set<std::string> ids;
  for (const check::Report& rep : r.reports)
    if (compared(rep.check)) ids.insert(std::string(check::check_name(rep.check)));
  return ids;
}

}  // namespace

ModeRuns mode_runs(const engine::ExecutionOptions& options) {
  ModeRuns m;
  const engine::SchedulePolicy in_order{engine::ScheduleKind::in_order, 0};
  m.fibers = options;
  m.fibers.mode = engine::ExecutionMode::fibers;
  m.fibers.schedule = in_order;
  m.fibers.checks.race = false;
  m.loops = options;
  m.loops.mode = engine::ExecutionMode::automatic;
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
  for (const check::Report& r : result.reports) {
    switch (r.check) {
      case check::CheckId::stack_overflow:
      case check::CheckId::bounds_device:
      case check::CheckId::bounds_threadgroup:
      case check::CheckId::kernel_fault:
      case check::CheckId::kernel_exception:
      case check::CheckId::watchdog_timeout:
      case check::CheckId::barrier_divergent:
      case check::CheckId::sync_deadlock:
      case check::CheckId::limit_threadgroup_memory:
      case check::CheckId::mode_unavailable: return true;
      default: break;
    }
  }
  return !result.failure.empty() && result.failure.rfind("harness error", 0) == 0;
}

}  // namespace metalsim::spec
