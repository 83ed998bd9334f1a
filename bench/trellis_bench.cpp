// The trellis family at model sizes: prefill (M = 512) and decode (M = 1) at K = N = 4096 for
// each bit width, and a small mixture-of-experts layer. Each benchmark times, in the same run,
//   kernel_ms     the emulated kernels through TrellisLinear / TrellisMoE, checks off
//   baseline_ms   the family's fast native baseline (kernels/trellis/trellis_baseline.h,
//                 Decode::on_the_fly): the trellis decoded inside every call, as the kernels do,
//                 and float GEMMs on the same OpenMP threads (the specs' baseline too)
//   once_ms       the same GEMMs over weights dequantized once outside the timing
//                 (Decode::once): what remains without the decoding
//   reference_ms  the checking reference (trellis_ref.cpp: dequantize, Eigen in double, bounds)
// and reports kernel / baseline (vs_baseline), kernel / once (vs_once) and kernel / reference.
// Run: build/release/bench/trellis_bench --benchmark_filter=decode
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <functional>

#include "kernels/trellis/trellis_baseline.h"
#include "kernels/trellis/trellis_linear.h"
#include "kernels/trellis/trellis_moe.h"
#include "kernels/trellis/trellis_problem.h"
#include "kernels/trellis/trellis_ref.h"

namespace metalsim::kernels::trellis {
namespace {

MTL::Device* device() {
  static NS::SharedPtr<MTL::Device> d = [] {
    auto dev = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
    metalsim::ExecutionOptions options = dev->executionOptions();
    options.checks = metalsim::CheckSet::none();  // the speed of the plain run
    dev->setExecutionOptions(options);
    return dev;
  }();
  return d.get();
}
MTL::CommandQueue* queue() {
  static NS::SharedPtr<MTL::CommandQueue> q = NS::TransferPtr(device()->newCommandQueue());
  return q.get();
}

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Timed {
  std::function<void()> kernel, baseline, once, reference;
};

void report(benchmark::State& state, const Timed& t) {
  double kernel = 0, baseline = 0, once = 0, reference = 0;
  for (auto _ : state) {
    kernel += seconds(t.kernel);
    baseline += seconds(t.baseline);
    once += seconds(t.once);
    reference += seconds(t.reference);
  }
  const double n = double(state.iterations());
  state.counters["kernel_ms"] = kernel * 1e3 / n;
  state.counters["baseline_ms"] = baseline * 1e3 / n;
  state.counters["once_ms"] = once * 1e3 / n;
  state.counters["reference_ms"] = reference * 1e3 / n;
  state.counters["vs_baseline"] = kernel / baseline;
  state.counters["vs_once"] = kernel / once;
  state.counters["vs_reference"] = kernel / reference;
}

void gemm(benchmark::State& state, GemmShape shape) {
  const GemmProblem p = make_gemm_problem(shape, 1);
  TrellisLinear linear(device(), p.weights);
  GemmBaselineData native = prepare_gemm_baseline(p.a, shape.M, p.weights, Decode::on_the_fly),
                   dense = prepare_gemm_baseline(p.a, shape.M, p.weights, Decode::once);
  Timed t;
  t.kernel = [&] { benchmark::DoNotOptimize(linear.forward(queue(), p.a)); };
  t.baseline = [&] { gemm_baseline(native); };
  t.once = [&] { gemm_baseline(dense); };
  t.reference = [&] { benchmark::DoNotOptimize(gemm_ref(p.a, shape.M, p.weights)); };
  report(state, t);
}

void moe(benchmark::State& state, MoeShape shape) {
  const MoeProblem p = make_moe_problem(shape, 1);
  TrellisMoE layer(device(), p.gate, p.up, p.down, shape.top_k);
  MoeBaselineData native = prepare_moe_baseline(p, Decode::on_the_fly),
                  dense = prepare_moe_baseline(p, Decode::once);
  Timed t;
  t.kernel = [&] { benchmark::DoNotOptimize(layer.forward(queue(), p.x, p.routing)); };
  t.baseline = [&] { moe_baseline(native); };
  t.once = [&] { moe_baseline(dense); };
  t.reference = [&] { benchmark::DoNotOptimize(moe_ref(p.x, p.routing, p.gate, p.up, p.down)); };
  report(state, t);
}

}  // namespace
}  // namespace metalsim::kernels::trellis

int main(int argc, char** argv) {
  using namespace metalsim::kernels::trellis;
  auto add = [](const std::string& name, auto fn, auto shape) {
    benchmark::RegisterBenchmark(name.c_str(), fn, shape)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(2);
  };
  for (uint32_t bits : {2u, 3u, 4u}) {
    const std::string b = std::to_string(bits);
    add("trellis_prefill(M=512,K=4096,N=4096,bits=" + b + ")", gemm,
        GemmShape{512, 4096, 4096, bits, 128, 0});
    add("trellis_decode(M=1,K=4096,N=4096,bits=" + b + ")", gemm,
        GemmShape{1, 4096, 4096, bits, 128, 0});
  }
  add("trellis_moe(M=32,hidden=1024,intermediate=512,experts=8,top_k=2,bits=4)", moe,
      MoeShape{32, 1024, 512, 8, 2, 4, 128});
  add("trellis_moe(M=1,hidden=1024,intermediate=512,experts=8,top_k=2,bits=4)", moe,
      MoeShape{1, 1024, 512, 8, 2, 4, 128});
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
