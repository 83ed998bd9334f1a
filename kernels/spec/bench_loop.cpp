#include "kernels/spec/bench_loop.h"

#include <algorithm>
#include <cmath>

#include "simt/engine/dispatch.h"

namespace metalsim::spec {

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

BenchMedians medians(const BenchTimes& t) {
  const double nan = std::nan("");
  return {median(t.fibers),
          t.lane_loops ? median(t.loops) : nan,
          t.has_baseline ? median(t.baseline) : nan,
          median(t.reference),
          median(t.fibers_checked),
          t.lane_loops ? median(t.loops_checked) : nan};
}

BenchLoop::BenchLoop(CaseContext& ctx, PreparedCase& c, BenchSettings settings)
    : ctx_(ctx), case_(c), settings_(settings) {}

double BenchLoop::time_kernel(metalsim::ExecutionMode mode, bool checked) {
  ctx_.mutable_options().mode = mode;
  ctx_.mutable_options().checked_variant = checked;
  case_.repoison();
  return seconds_of([&] { case_.run_kernel(); });
}

void BenchLoop::warm_up() {
  time_kernel(metalsim::ExecutionMode::fibers, false);
  time_kernel(metalsim::ExecutionMode::automatic, false);
  if (settings_.checked_variant) time_kernel(metalsim::ExecutionMode::automatic, true);
  times_.has_baseline = case_.run_baseline();
  if (settings_.reference) case_.run_reference();
}

void BenchLoop::repeat() {
  times_.fibers.push_back(time_kernel(metalsim::ExecutionMode::fibers, false));
  const uint64_t before = engine::lane_loop_threadgroups_total();
  times_.loops.push_back(time_kernel(metalsim::ExecutionMode::automatic, false));
  times_.lane_loops = engine::lane_loop_threadgroups_total() > before;
  if (times_.has_baseline) times_.baseline.push_back(seconds_of([&] { case_.run_baseline(); }));
  if (settings_.reference) times_.reference.push_back(seconds_of([&] { case_.run_reference(); }));
  if (settings_.checked_variant) {
    times_.fibers_checked.push_back(time_kernel(metalsim::ExecutionMode::fibers, true));
    times_.loops_checked.push_back(time_kernel(metalsim::ExecutionMode::automatic, true));
  }
}

BenchTimes time_case(CaseContext& ctx, PreparedCase& c, BenchSettings settings,
                     size_t repetitions) {
  BenchLoop loop(ctx, c, settings);
  loop.warm_up();
  for (size_t i = 0; i < repetitions; ++i) loop.repeat();
  return loop.times();
}

}  // namespace metalsim::spec
