// Every kernel at model-scale shapes (the spec registry's bench_cases), in lane loops and on
// fibers, against the fast native baseline (float, the same OpenMP threads; issue 10 item 8) and
// the checking reference, all measured in the same run. ratio = kernel / baseline.
// Run: build/release/bench/kernels_bench --benchmark_filter=softmax --benchmark_repetitions=3
// (METALSIM_BENCH_NO_REFERENCE=1: the reference is not timed, for short runs at many threads).
// With every check off the kernels run their fast variant; METALSIM_BENCH_CHECKED=1 also times
// the checked variant with every check off (loops_checked_ms, fibers_checked_ms): what the
// access-check pass's instrumentation costs when no check uses it.
// Each counter is the median of METALSIM_BENCH_ITERATIONS timed runs (default 3), each side timed
// in a block of its own after one untimed run (kernels/spec/bench_loop.h, the loop `metalsim
// bench` uses too). Google Benchmark's own iteration is that whole loop, once.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "kernels/spec/bench_loop.h"
#include "kernels/spec/case_runner.h"

namespace metalsim::spec {
namespace {

// METALSIM_BENCH_ITERATIONS (default 3): timed runs per case; the counters are their medians.
size_t repetitions() {
  const char* n = std::getenv("METALSIM_BENCH_ITERATIONS");
  return n != nullptr && std::atoi(n) > 0 ? size_t(std::atoi(n)) : 3;
}

void bench_case(benchmark::State& state, const KernelSpec* spec, Params params) {
  metalsim::ExecutionOptions options;
  options.checks = metalsim::CheckSet::none();  // speed of the plain run
  auto ctx = CaseRunner::shared().context(options, 1);
  std::unique_ptr<PreparedCase> c = spec->prepare_case(spec->complete(params), *ctx);
  const BenchSettings settings{.reference = std::getenv("METALSIM_BENCH_NO_REFERENCE") == nullptr,
                               .checked_variant = std::getenv("METALSIM_BENCH_CHECKED") != nullptr};
  BenchTimes times;
  for (auto _ : state) times = time_case(*ctx, *c, settings, repetitions());
  const BenchMedians m = medians(times);
  state.counters["loops_ms"] = m.loops * 1e3;
  state.counters["fibers_ms"] = m.fibers * 1e3;
  state.counters["baseline_ms"] = m.baseline * 1e3;
  state.counters["reference_ms"] = m.reference * 1e3;
  state.counters["loops_ratio"] = m.loops / m.baseline;
  state.counters["fibers_ratio"] = m.fibers / m.baseline;
  if (settings.checked_variant) {
    state.counters["loops_checked_ms"] = m.loops_checked * 1e3;
    state.counters["fibers_checked_ms"] = m.fibers_checked * 1e3;
    state.counters["loops_checked_ratio"] = m.loops_checked / m.baseline;
    state.counters["fibers_checked_ratio"] = m.fibers_checked / m.baseline;
  }
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
          ->Iterations(1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
