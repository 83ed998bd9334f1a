// The ceiling of issue 24 item 1: the hand-written lane loops of bench/ceiling_kernels.cpp
// (softmax, rms_norm, flash attention as a vectorizing lane-loop pass should compile them)
// against the same fast native baseline kernels_bench times, in the same run, at the same bench
// shapes (the specs' bench_cases, under kernels_bench's names). ceiling_ratio = ceiling /
// baseline: what the pass aims for (docs/performance.md, "The ceiling: hand-written lane loops").
// Before timing, each case checks the ceiling's output against the baseline's under twice the
// spec's tolerance (each is held to the tolerance against the exact result, so two correct
// outputs may differ by twice it) and fails the benchmark (error, no figures) beyond it:
// max_error is the worst difference as a fraction of that bound. It also runs the .metal kernel
// once in lane loops on the same inputs and counts the output elements whose bits differ from the
// ceiling's (kernel_diffs): 0 says the ceiling computes exactly what the kernel computes. Run:
// OMP_NUM_THREADS=2 build/release/bench/ceiling_bench --benchmark_repetitions=5
//        --benchmark_report_aggregates_only=true
// METALSIM_BENCH_ITERATIONS (default 3): timed runs per case; the counters are their medians.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/ceiling_kernels.h"
#include "kernels/attention/attention_baseline.h"
#include "kernels/attention/attention_inputs.h"
#include "kernels/attention/attention_tolerance.h"
#include "kernels/elementwise/elementwise_baseline.h"
#include "kernels/elementwise/rms_norm_tolerance.h"
#include "kernels/softmax/softmax_baseline.h"
#include "kernels/softmax/softmax_tolerance.h"
#include "kernels/spec/bench_loop.h"
#include "kernels/spec/case_runner.h"
#include "kernels/spec/compare.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::ceiling {
namespace {

using kernels::attention::AttentionProblem;
using spec::Params;

constexpr uint64_t kSeed = 1;  // inputs: the specs' distributions, not their exact values

int64_t iterations() {
  const char* n = std::getenv("METALSIM_BENCH_ITERATIONS");
  return n != nullptr && std::atoi(n) > 0 ? std::atoi(n) : 3;
}

// The kernels' context: every check off, lane loops, like kernels_bench's loops_ms.
spec::CaseContext& device() {
  static std::unique_ptr<spec::CaseContext> ctx = [] {
    metalsim::ExecutionOptions options;
    options.checks = metalsim::CheckSet::none();
    options.mode = metalsim::ExecutionMode::loops;
    return spec::CaseRunner::shared().context(options, kSeed);
  }();
  return *ctx;
}

// One dispatch of `kernel` in threadgroups of `tg` lanes, the output read back from `out`.
std::vector<half_t> run_kernel(const std::string& kernel, const spec::CaseContext::Bind& bind,
                               MTL::Size grid, uint32_t tg, MTL::Buffer* out) {
  spec::CaseResult r;
  device().dispatch(kernel, bind, grid, MTL::Size(tg, 1, 1), spec::CaseContext::Grid::threadgroups,
                    r);
  const auto* data = static_cast<const half_t*>(out->contents());
  return {data, data + out->length() / sizeof(half_t)};
}

// One case: the ceiling and the baseline as calls, `prepare` (untimed) before each ceiling run
// (an in-place kernel gets its input back), the kernel's output in lane loops, the two timed
// calls' outputs and the spec's tolerance.
struct Case {
  std::function<void()> prepare, ceiling, baseline;
  std::function<std::vector<half_t>()> kernel;
  const half_t* ceiling_out = nullptr;
  const half_t* baseline_out = nullptr;
  size_t n = 0;
  spec::Tolerance tolerance;
};

// The ceiling's output against the baseline's: false (and the benchmark skipped with the reason)
// beyond twice the spec's tolerance.
bool agrees(benchmark::State& state, const Case& c) {
  const std::vector<double> ref(c.baseline_out, c.baseline_out + c.n);
  const spec::Tolerance twice{2 * c.tolerance.abs, 2 * c.tolerance.rel, c.tolerance.why};
  spec::CaseResult r;
  spec::compare_output("output", c.ceiling_out, ref.data(), c.n, twice, r);
  spec::finish(r);
  if (!r.passed) {
    state.SkipWithError(("the ceiling differs from the baseline: " + r.failure).c_str());
    return false;
  }
  state.counters["max_error"] = r.max_error;
  return true;
}

// Output elements whose bits differ between the kernel (lane loops) and the ceiling.
double kernel_diffs(const Case& c) {
  const std::vector<half_t> k = c.kernel();
  size_t diffs = 0;
  for (size_t i = 0; i < c.n; ++i)
    diffs += std::memcmp(&k[i], &c.ceiling_out[i], sizeof(half_t)) != 0 ? 1 : 0;
  return double(diffs);
}

// One untimed run of each, the check, then per benchmark iteration one timed run of each; the
// counters are the medians.
void run_case(benchmark::State& state, Case c) {
  c.prepare();
  c.ceiling();
  c.baseline();
  if (!agrees(state, c)) return;
  state.counters["kernel_diffs"] = kernel_diffs(c);
  std::vector<double> ceiling, baseline;
  for (auto _ : state) {
    c.prepare();
    ceiling.push_back(spec::seconds_of(c.ceiling));
    baseline.push_back(spec::seconds_of(c.baseline));
  }
  const double cm = spec::median(ceiling), bm = spec::median(baseline);
  state.counters["ceiling_ms"] = cm * 1e3;
  state.counters["baseline_ms"] = bm * 1e3;
  state.counters["ceiling_ratio"] = cm / bm;
  state.counters["threads"] = omp_get_max_threads();
}

// ------------------------------ softmax: one threadgroup per row, in place

void bench_softmax(benchmark::State& state, Params p) {
  const uint32_t rows = uint32_t(p.at("rows")), cols = uint32_t(p.at("cols")),
                 tg = uint32_t(p.at("tg"));
  spec::InputGenerator gen(kSeed);
  auto input = std::make_shared<std::vector<half_t>>(size_t(rows) * cols);
  for (half_t& v : *input) v = half_t(3 * gen.normal());  // softmax_spec.cpp's fill 0
  auto x = std::make_shared<std::vector<half_t>>(input->size());
  auto out = std::make_shared<std::vector<half_t>>(input->size());
  Case c;
  c.prepare = [=] { std::copy(input->begin(), input->end(), x->begin()); };
  c.ceiling = [=] {
#pragma omp parallel for schedule(static)
    for (int64_t g = 0; g < int64_t(rows); ++g)
      softmax_threadgroup(x->data(), rows, cols, tg, uint32_t(g));
  };
  c.baseline = [=] { kernels::softmax::softmax_baseline(input->data(), out->data(), rows, cols); };
  c.kernel = [=] {
    auto xb = device().buffer(*input);
    return run_kernel(
        "softmax",
        [&](MTL::ComputeCommandEncoder* e) {
          e->setBuffer(xb.get(), 0, 0);
          e->setBytes(&rows, sizeof rows, 1);
          e->setBytes(&cols, sizeof cols, 2);
          e->setThreadgroupMemoryLength(spec::tg_bytes(tg * sizeof(float)), 0);
        },
        MTL::Size(rows, 1, 1), tg, xb.get());
  };
  c.ceiling_out = x->data();
  c.baseline_out = out->data();
  c.n = input->size();
  c.tolerance = kernels::softmax::softmax_tolerance(cols);
  run_case(state, std::move(c));
}

// ------------------------------ rms_norm: one threadgroup per row

void bench_rms_norm(benchmark::State& state, Params p) {
  const uint32_t rows = uint32_t(p.at("rows")), hidden = uint32_t(p.at("hidden")),
                 tg = uint32_t(p.at("tg"));
  const float eps = 1e-6f;  // elementwise_spec.cpp's
  spec::InputGenerator gen(kSeed);
  auto x = std::make_shared<std::vector<half_t>>(
      gen.uniform_vector<half_t>(size_t(rows) * hidden, -2, 2));
  auto w = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(hidden, 0.5, 1.5));
  auto out = std::make_shared<std::vector<half_t>>(x->size());
  auto fast = std::make_shared<std::vector<half_t>>(x->size());
  Case c;
  c.prepare = [] {};
  c.ceiling = [=] {
#pragma omp parallel for schedule(static)
    for (int64_t g = 0; g < int64_t(rows); ++g)
      rms_norm_threadgroup(x->data(), w->data(), out->data(), hidden, eps, 0.0f, tg, uint32_t(g));
  };
  c.baseline = [=] {
    kernels::elementwise::rms_norm_baseline(x->data(), w->data(), fast->data(), rows, hidden, eps,
                                            0.0f);
  };
  c.kernel = [=] {
    auto xb = device().buffer(*x), wb = device().buffer(*w), ob = device().buffer(x->size() * 2);
    return run_kernel(
        "rms_norm",
        [&](MTL::ComputeCommandEncoder* e) {
          e->setBuffer(xb.get(), 0, 0);
          e->setBuffer(wb.get(), 0, 1);
          e->setBuffer(ob.get(), 0, 2);
          e->setBytes(&hidden, sizeof hidden, 3);
          e->setBytes(&eps, sizeof eps, 4);
          e->setThreadgroupMemoryLength(spec::tg_bytes(tg * sizeof(float)), 0);
        },
        MTL::Size(rows, 1, 1), tg, ob.get());
  };
  c.ceiling_out = out->data();
  c.baseline_out = fast->data();
  c.n = x->size();
  c.tolerance = kernels::elementwise::rms_norm_tolerance(hidden);
  run_case(state, std::move(c));
}

// ------------------------------ flash_attention_forward: threadgroups of 32 query rows

AttentionProblem attention_problem(const Params& p) {
  auto get = [&](const char* name, int fallback) {
    return p.contains(name) ? int(p.at(name)) : fallback;
  };
  AttentionProblem a;
  a.batch = get("batch", 1);
  a.heads = get("heads", 1);
  a.kv_heads = get("kv_heads", 0) == 0 ? a.heads : get("kv_heads", 0);
  a.head_dim = get("head_dim", 64);
  a.seq_q = get("seq_q", 1);
  a.seq_kv = get("seq_kv", 1);
  a.causal = get("causal", 0) != 0;
  a.kv_offset = get("kv_offset", 0);
  a.scale = kernels::attention::kernel_scale(a.head_dim);
  a.q = a.o = kernels::attention::contiguous_view(a.heads, a.seq_q, a.head_dim);
  a.k = a.v = kernels::attention::contiguous_view(a.kv_heads, a.seq_kv, a.head_dim);
  return a;
}

std::vector<half_t> run_flash_attention(const AttentionProblem& a,
                                        const kernels::attention::AttentionInputs& in) {
  spec::CaseContext& dev = device();
  auto qb = dev.buffer(in.q), kb = dev.buffer(in.k), vb = dev.buffer(in.v);
  auto ob = dev.buffer(in.q.size() * sizeof(half_t));
  const kernels::attention::FlashAttentionParams p = kernels::attention::flash_params(a);
  const uint64_t smem = uint64_t(kernels::attention::flash_threadgroup_bytes(a.head_dim));
  return run_kernel(
      "flash_attention_forward",
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(qb.get(), 0, 0);
        e->setBuffer(kb.get(), 0, 1);
        e->setBuffer(vb.get(), 0, 2);
        e->setBuffer(ob.get(), 0, 3);
        e->setBytes(&p, sizeof p, 4);
        e->setThreadgroupMemoryLength(smem, 0);
      },
      MTL::Size((a.seq_q + 31) / 32, a.heads, a.batch), 128, ob.get());
}

void bench_flash_attention(benchmark::State& state, Params p) {
  auto a = std::make_shared<AttentionProblem>(attention_problem(p));
  if (a->head_dim % 32 != 0 || a->head_dim > 128 || (p.contains("layout") && p.at("layout") != 0)) {
    state.SkipWithError("the ceiling takes head_dim 32, 64, 96 or 128, contiguous layout");
    return;
  }
  spec::InputGenerator gen(kSeed);
  auto in = std::make_shared<kernels::attention::AttentionInputs>(
      kernels::attention::make_inputs(*a, a->seq_kv, gen));
  auto out = std::make_shared<std::vector<half_t>>(in->q.size());
  auto fast = std::make_shared<std::vector<half_t>>(in->q.size());
  Case c;
  c.prepare = [] {};
  c.ceiling = [=] {
    const int64_t tiles = (a->seq_q + 31) / 32, groups = tiles * a->heads * a->batch;
    // The grid (tiles, heads, batch), x fastest, one threadgroup at a time as the baseline's
    // blocks (schedule(dynamic, 1): causal tiles differ in work).
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t g = 0; g < groups; ++g)
      flash_attention_threadgroup(*a, in->q.data(), in->k.data(), in->v.data(), out->data(),
                                  uint32_t(g % tiles), uint32_t(g / tiles % a->heads),
                                  uint32_t(g / tiles / a->heads));
  };
  c.baseline = [=] {
    kernels::attention::attention_baseline(*a, in->q.data(), in->k.data(), in->v.data(),
                                           fast->data());
  };
  c.kernel = [=] { return run_flash_attention(*a, *in); };
  c.ceiling_out = out->data();
  c.baseline_out = fast->data();
  c.n = out->size();
  c.tolerance = kernels::attention::attention_tolerance();
  run_case(state, std::move(c));
}

// Each spec's bench cases, under kernels_bench's names.
void register_cases(const char* name, void (*bench)(benchmark::State&, Params)) {
  const spec::KernelSpec* s = spec::SpecRegistry::find(name);
  if (s == nullptr) return;
  for (const Params& p : s->bench_cases())
    benchmark::RegisterBenchmark(spec::case_id(name, p).c_str(), bench, s->complete(p))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(iterations());
}

}  // namespace
}  // namespace metalsim::ceiling

int main(int argc, char** argv) {
  using namespace metalsim::ceiling;
  register_cases("softmax", bench_softmax);
  register_cases("rms_norm", bench_rms_norm);
  register_cases("flash_attention_forward", bench_flash_attention);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
