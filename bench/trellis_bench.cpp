// The trellis family at model sizes: prefill (M = 512) and decode (M = 1) at K = N = 4096 for
// each bit width, and a small mixture-of-experts layer. Each benchmark times, in the same run,
//   kernel_ms     the emulated kernels through TrellisLinear / TrellisMoE, checks off
//   baseline_ms   a fast native baseline: the weights dequantized once (outside the timing),
//                 then Eigen's float GEMM on the same OpenMP threads
//   reference_ms  the checking reference (trellis_ref.cpp: dequantize, Eigen in double, bounds)
// and reports kernel / baseline and kernel / reference.
// Run: build/release/bench/trellis_bench --benchmark_filter=decode
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <functional>

#include <Eigen/Core>

#include "kernels/trellis/trellis_linear.h"
#include "kernels/trellis/trellis_moe.h"
#include "kernels/trellis/trellis_problem.h"
#include "kernels/trellis/trellis_ref.h"

namespace metalsim::kernels::trellis {
namespace {

using MatrixXfR = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

MTL::Device* device() {
  static NS::SharedPtr<MTL::Device> d = [] {
    auto dev = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
    dev->executionOptions().checks = {false, false, false, false};  // the speed of the plain run
    return dev;
  }();
  return d.get();
}
MTL::CommandQueue* queue() {
  static NS::SharedPtr<MTL::CommandQueue> q = NS::TransferPtr(device()->newCommandQueue());
  return q.get();
}

MatrixXfR to_float(std::span<const half_t> v, uint32_t rows, uint32_t cols) {
  MatrixXfR m(rows, cols);
  for (size_t i = 0; i < v.size(); ++i) m.data()[i] = float(v[i]);
  return m;
}
MatrixXfR dequantize_float(const TrellisWeights& w, uint32_t e) {
  return dequantize(w, e).cast<float>();
}

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Timed {
  std::function<void()> kernel, baseline, reference;
};

void report(benchmark::State& state, const Timed& t) {
  double kernel = 0, baseline = 0, reference = 0;
  for (auto _ : state) {
    kernel += seconds(t.kernel);
    baseline += seconds(t.baseline);
    reference += seconds(t.reference);
  }
  const double n = double(state.iterations());
  state.counters["kernel_ms"] = kernel * 1e3 / n;
  state.counters["baseline_ms"] = baseline * 1e3 / n;
  state.counters["reference_ms"] = reference * 1e3 / n;
  state.counters["vs_baseline"] = kernel / baseline;
  state.counters["vs_reference"] = kernel / reference;
}

void gemm(benchmark::State& state, GemmShape shape) {
  const GemmProblem p = make_gemm_problem(shape, 1);
  TrellisLinear linear(device(), p.weights);
  const MatrixXfR a = to_float(p.a, shape.M, shape.K), w = dequantize_float(p.weights, 0);
  MatrixXfR c(shape.M, shape.N);
  Timed t;
  t.kernel = [&] { benchmark::DoNotOptimize(linear.forward(queue(), p.a)); };
  t.baseline = [&] { c.noalias() = a * w; };
  t.reference = [&] { benchmark::DoNotOptimize(gemm_ref(p.a, shape.M, p.weights)); };
  report(state, t);
}

// The baseline MoE: per expert, its tokens gathered, SwiGLU of two float GEMMs, the down GEMM,
// rows added with their probabilities.
void moe(benchmark::State& state, MoeShape shape) {
  const MoeProblem p = make_moe_problem(shape, 1);
  TrellisMoE layer(device(), p.gate, p.up, p.down, shape.top_k);
  std::vector<MatrixXfR> wg, wu, wd;
  for (uint32_t e = 0; e < shape.experts; ++e) {
    wg.push_back(dequantize_float(p.gate, e));
    wu.push_back(dequantize_float(p.up, e));
    wd.push_back(dequantize_float(p.down, e));
  }
  const MatrixXfR x = to_float(p.x, shape.M, shape.hidden);
  MatrixXfR out(shape.M, shape.hidden);
  Timed t;
  t.kernel = [&] { benchmark::DoNotOptimize(layer.forward(queue(), p.x, p.routing)); };
  t.baseline = [&] {
    out.setZero();
    for (uint32_t e = 0; e < shape.experts; ++e) {
      std::vector<uint32_t> rows;
      std::vector<float> probs;
      for (uint32_t i = 0; i < p.routing.expert_ids.size(); ++i)
        if (p.routing.expert_ids[i] == e)
          rows.push_back(i / shape.top_k), probs.push_back(p.routing.probs[i]);
      if (rows.empty()) continue;
      MatrixXfR xe(rows.size(), shape.hidden);
      for (size_t r = 0; r < rows.size(); ++r) xe.row(r) = x.row(rows[r]);
      const MatrixXfR g = xe * wg[e], u = xe * wu[e];
      const MatrixXfR h = (g.array() / (1 + (-g.array()).exp()) * u.array()).matrix();
      const MatrixXfR d = h * wd[e];
      for (size_t r = 0; r < rows.size(); ++r) out.row(rows[r]) += probs[r] * d.row(r);
    }
  };
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
