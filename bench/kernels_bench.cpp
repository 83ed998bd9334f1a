// Every kernel at model-scale shapes (the spec registry's bench_cases), in lane loops and on
// fibers, against the fast native baseline (float, the same OpenMP threads; issue 10 item 8) and
// the checking reference, all measured in the same run. ratio = kernel / baseline.
// Run: build/release/bench/kernels_bench --benchmark_filter=softmax --benchmark_repetitions=3
// (METALSIM_BENCH_NO_REFERENCE=1: the reference is not timed, for short runs at many threads).
// With every check off the kernels run their fast variant; METALSIM_BENCH_CHECKED=1 also times
// the checked variant with every check off (loops_checked_ms, fibers_checked_ms): what the
// access-check pass's instrumentation costs when no check uses it.
// Each counter is the median of the timed iterations, after one untimed warm-up of each.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "kernels/spec/case_runner.h"
#include "kernels/spec/timing.h"
#include "simt/engine/dispatch.h"

namespace metalsim::spec {
namespace {

void bench_case(benchmark::State& state, const KernelSpec* spec, Params params) {
  engine::ExecutionOptions options;
  options.checks = check::CheckSet::none();  // speed of the plain run
  auto ctx = CaseRunner::shared().context(options, 1);
  std::unique_ptr<PreparedCase> c = spec->prepare(spec->complete(params), *ctx);
  auto run = [&](engine::ExecutionMode mode, bool checked = false) {
    ctx->mutable_options().mode = mode;
    ctx->mutable_options().checked_variant = checked;
    c->repoison();
    return seconds_of([&] { c->run_kernel(); });
  };
  const bool time_reference = std::getenv("METALSIM_BENCH_NO_REFERENCE") == nullptr;
  const bool time_checked = std::getenv("METALSIM_BENCH_CHECKED") != nullptr;
  std::vector<double> loops, fibers, baseline, reference;  // seconds, one per iteration
  std::vector<double> loops_checked, fibers_checked;
  bool has_baseline = false, lane_loops = false;
  // Warm-up, untimed: pipelines, fiber stacks, page faults of the outputs, and the baselines'
  // one-time preparation (the trellis family dequantizes its weights on first use).
  run(engine::ExecutionMode::fibers);
  run(engine::ExecutionMode::automatic);
  if (time_checked) run(engine::ExecutionMode::automatic, true);
  c->run_baseline();
  for (auto _ : state) {
    fibers.push_back(run(engine::ExecutionMode::fibers));
    const uint64_t before = engine::lane_loop_threadgroups_total();
    loops.push_back(run(engine::ExecutionMode::automatic));
    lane_loops = engine::lane_loop_threadgroups_total() > before;
    baseline.push_back(seconds_of([&] { has_baseline = c->run_baseline(); }));
    if (time_reference) reference.push_back(seconds_of([&] { c->run_reference(); }));
    if (time_checked) {
      fibers_checked.push_back(run(engine::ExecutionMode::fibers, true));
      loops_checked.push_back(run(engine::ExecutionMode::automatic, true));
    }
  }
  // Medians of the iterations: one slow run on a shared machine does not move them.
  const double nan = std::nan("");
  const double loops_s = lane_loops ? median(loops) : nan, fibers_s = median(fibers),
               baseline_s = has_baseline ? median(baseline) : nan;
  state.counters["loops_ms"] = loops_s * 1e3;
  state.counters["fibers_ms"] = fibers_s * 1e3;
  state.counters["baseline_ms"] = baseline_s * 1e3;
  state.counters["reference_ms"] = time_reference ? median(reference) * 1e3 : nan;
  state.counters["loops_ratio"] = loops_s / baseline_s;
  state.counters["fibers_ratio"] = fibers_s / baseline_s;
  if (time_checked) {
    const double loops_checked_s = lane_loops ? median(loops_checked) : nan;
    state.counters["loops_checked_ms"] = loops_checked_s * 1e3;
    state.counters["fibers_checked_ms"] = median(fibers_checked) * 1e3;
    state.counters["loops_checked_ratio"] = loops_checked_s / baseline_s;
    state.counters["fibers_checked_ratio"] = median(fibers_checked) / baseline_s;
  }
}

}  // namespace
}  // namespace metalsim::spec

// METALSIM_BENCH_ITERATIONS (default 3): timed runs per case; the counters are their medians.
int64_t iterations() {
  const char* n = std::getenv("METALSIM_BENCH_ITERATIONS");
  return n != nullptr && std::atoi(n) > 0 ? std::atoi(n) : 3;
}

int main(int argc, char** argv) {
  using namespace metalsim::spec;
  for (const KernelSpec* spec : SpecRegistry::all())
    for (const Params& p : spec->bench_cases())
      benchmark::RegisterBenchmark(case_id(spec->name(), p).c_str(), bench_case, spec, p)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(iterations());
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
