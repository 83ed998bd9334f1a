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

namespace {

class BenchLoop {
 public:
  BenchLoop(CaseContext& ctx, PreparedCase& c, BenchSettings settings)
      : ctx_(ctx), case_(c), settings_(settings) {}
  void run(size_t repetitions);
  const BenchTimes& times() const { return times_; }

 private:
  double time_kernel(metalsim::ExecutionMode mode, bool checked) {
    ctx_.mutable_options().mode = mode;
    ctx_.mutable_options().checked_variant = checked;
    case_.repoison();
    return seconds_of([&] { case_.run_kernel(); });
  }
  // One untimed run of `f`, then `repetitions` timed ones into `out`.
  template <class F>
  void block(size_t repetitions, std::vector<double>& out, F&& f) {
    f();
    for (size_t i = 0; i < repetitions; ++i) out.push_back(f());
  }

  CaseContext& ctx_;
  PreparedCase& case_;
  BenchSettings settings_;
  BenchTimes times_;
};

void BenchLoop::run(size_t repetitions) {
  using metalsim::ExecutionMode;
  block(repetitions, times_.fibers, [&] { return time_kernel(ExecutionMode::fibers, false); });
  const uint64_t before = engine::lane_loop_threadgroups_total();
  block(repetitions, times_.loops, [&] { return time_kernel(ExecutionMode::automatic, false); });
  times_.lane_loops = engine::lane_loop_threadgroups_total() > before;
  if (settings_.checked_variant) {
    block(repetitions, times_.fibers_checked,
          [&] { return time_kernel(ExecutionMode::fibers, true); });
    block(repetitions, times_.loops_checked,
          [&] { return time_kernel(ExecutionMode::automatic, true); });
  }
  // The native sides last: what their OpenMP threads leave spinning meets no emulated block.
  // The baseline's untimed run also says whether the spec has one.
  times_.has_baseline = case_.run_baseline();
  if (times_.has_baseline)
    for (size_t i = 0; i < repetitions; ++i)
      times_.baseline.push_back(seconds_of([&] { case_.run_baseline(); }));
  if (settings_.reference)
    block(repetitions, times_.reference,
          [&] { return seconds_of([&] { case_.run_reference(); }); });
}

}  // namespace

BenchTimes time_case(CaseContext& ctx, PreparedCase& c, BenchSettings settings,
                     size_t repetitions) {
  BenchLoop loop(ctx, c, settings);
  loop.run(repetitions);
  return loop.times();
}

}  // namespace metalsim::spec
