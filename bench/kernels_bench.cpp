// Every kernel at model-scale shapes (the spec registry's bench_cases), in lane loops and on
// fibers, against the fast native baseline (float, the same OpenMP threads; issue 10 item 8) and
// the checking reference, all measured in the same run. ratio = kernel / baseline.
// Run: build/release/bench/kernels_bench --benchmark_filter=softmax --benchmark_repetitions=3
// (METALSIM_BENCH_NO_REFERENCE=1: the reference is not timed, for short runs at many threads).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdlib>

#include "kernels/spec/case_runner.h"
#include "simt/engine/dispatch.h"

namespace metalsim::spec {
namespace {

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void bench_case(benchmark::State& state, const KernelSpec* spec, Params params) {
  engine::ExecutionOptions options;
  options.checks = check::CheckSet::none();  // speed of the plain run
  auto ctx = CaseRunner::shared().context(options, 1);
  std::unique_ptr<PreparedCase> c = spec->prepare(spec->complete(params), *ctx);
  auto run = [&](engine::ExecutionMode mode) {
    ctx->mutable_options().mode = mode;
    c->repoison();
    return seconds([&] { c->run_kernel(); });
  };
  const bool time_reference = std::getenv("METALSIM_BENCH_NO_REFERENCE") == nullptr;
  double loops = 0, fibers = 0, baseline = 0, reference = 0;
  bool has_baseline = false, lane_loops = false;
  // Warm-up, untimed: pipelines, fiber stacks, page faults of the outputs, and the baselines'
  // one-time preparation (the trellis family dequantizes its weights on first use).
  run(engine::ExecutionMode::fibers);
  run(engine::ExecutionMode::automatic);
  c->run_baseline();
  for (auto _ : state) {
    fibers += run(engine::ExecutionMode::fibers);
    const uint64_t before = engine::lane_loop_threadgroups_total();
    loops += run(engine::ExecutionMode::automatic);
    lane_loops = engine::lane_loop_threadgroups_total() > before;
    baseline += seconds([&] { has_baseline = c->run_baseline(); });
    if (time_reference) reference += seconds([&] { c->run_reference(); });
  }
  const double n = double(state.iterations());
  state.counters["loops_ms"] = lane_loops ? loops * 1e3 / n : std::nan("");
  state.counters["fibers_ms"] = fibers * 1e3 / n;
  state.counters["baseline_ms"] = has_baseline ? baseline * 1e3 / n : std::nan("");
  state.counters["reference_ms"] = time_reference ? reference * 1e3 / n : std::nan("");
  state.counters["loops_ratio"] = lane_loops && has_baseline ? loops / baseline : std::nan("");
  state.counters["fibers_ratio"] = has_baseline ? fibers / baseline : std::nan("");
}

}  // namespace
}  // namespace metalsim::spec

int main(int argc, char** argv) {
  using namespace metalsim::spec;
  for (const KernelSpec* spec : SpecRegistry::all())
    for (const Params& p : spec->bench_cases())
      benchmark::RegisterBenchmark(case_id(spec->name(), p).c_str(), bench_case, spec, p)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(3);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
