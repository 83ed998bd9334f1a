// Every kernel against its native (Eigen) reference at model-scale shapes: the spec registry's
// bench_cases. One benchmark per case alternates the emulated kernel and the reference and
// reports both times and their ratio, measured in the same run.
// Run: build/release/bench/kernels_bench --benchmark_filter=softmax --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <chrono>

#include "kernels/spec/case_runner.h"

namespace metalsim::spec {
namespace {

void bench_case(benchmark::State& state, const KernelSpec* spec, Params params) {
  engine::ExecutionOptions options;
  options.checks = check::CheckSet::none();  // speed of the plain run
  auto ctx = CaseRunner::shared().context(options, 1);
  std::unique_ptr<PreparedCase> c = spec->prepare(spec->complete(params), *ctx);
  double kernel = 0, reference = 0;
  for (auto _ : state) {
    c->repoison();
    auto t0 = std::chrono::steady_clock::now();
    c->run_kernel();
    auto t1 = std::chrono::steady_clock::now();
    c->run_reference();
    auto t2 = std::chrono::steady_clock::now();
    kernel += std::chrono::duration<double>(t1 - t0).count();
    reference += std::chrono::duration<double>(t2 - t1).count();
  }
  const double n = double(state.iterations());
  state.counters["kernel_ms"] = kernel * 1e3 / n;
  state.counters["reference_ms"] = reference * 1e3 / n;
  state.counters["ratio"] = kernel / reference;
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
