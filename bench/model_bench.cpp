// The model runner at SmolLM-135M's shapes (host/model/, docs/pipeline.md): prefill tokens per
// second of forward_prompt (batched mat-vecs) against token-by-token forward_token for prompts
// of 1, 8, 32 and 128 tokens, and decode tokens per second with the host-side (encoding) time
// per token, without and with capture (BM_DecodeCaptured: forward_token replayed from an
// MTL::IndirectCommandBuffer recorded once, before the timed iterations).
// Each benchmark also times, in the same iterations, the native baseline
// (bench/baseline/model_baseline.h: the same weights in float C++ with Eigen, as many OpenMP
// threads as the device's workers) on the same tokens, and reports
//   tok_per_s         the runner's tokens per second (the benchmark's time is the runner's alone)
//   native_tok_per_s  the baseline's (prefill: the median of kNativeRuns runs per iteration)
//   vs_native         runner time / baseline time
// Run: build/release/bench/model_bench [--model_layers=N] [--benchmark_filter=Prefill]
//      (--model_layers: fewer layers than SmolLM's 30, for a quick look; METALSIM_CHECKS=none
//      for the runner without checks, METALSIM_THREADS or OMP_NUM_THREADS for both sides' threads)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "bench/baseline/model_baseline.h"
#include "host/model/model_runner.h"
#include "kernels/spec/inputs.h"

namespace metalsim::model {
namespace {

struct Setup {
  NS::SharedPtr<MTL::Device> device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  ModelConfig config = ModelConfig::smollm_135m();
  ModelWeights weights;
  std::vector<uint32_t> prompt;  // 128 random ids
  // The baseline's threads: the device's workers (0, the default, is omp_get_max_threads() on
  // both sides).
  int threads() const { return int(device->executionOptions().workers); }
};

Setup& setup() {
  static Setup s;
  return s;
}

void prepare(uint32_t layers) {
  Setup& s = setup();
  if (layers != 0) s.config.layers = layers;
  s.weights = generate_weights(s.config, 1);
  spec::InputGenerator gen(2);
  s.prompt.resize(128);
  for (uint32_t& t : s.prompt) t = uint32_t(gen.integer(0, s.config.vocab - 1));
  // Warm-up, untimed: the OpenMP workers, their stack pools and threadgroup arenas.
  ModelRunner(s.device.get(), s.config, s.weights).forward_token(s.prompt[0]);
  baseline::NativeModel(s.config, s.weights, s.threads()).forward_token(s.prompt[0]);
}

template <typename F>
double seconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs of the native prefill per iteration, their median kept: a run takes milliseconds where
// the runner's takes seconds, and one run on a shared machine is noise.
constexpr int kNativeRuns = 5;

// Totals over the iterations: the runner's time (also the benchmark's, set per iteration), its
// encoding share, and the baseline's time for the same tokens.
struct Totals {
  double runner = 0, encode = 0, native = 0;
};

void report(benchmark::State& state, double tokens, const Totals& t) {
  const double all = tokens * double(state.iterations());
  state.counters["tok_per_s"] = all / t.runner;
  state.counters["encode_ms_per_tok"] = t.encode * 1e3 / all;
  state.counters["native_tok_per_s"] = all / t.native;
  state.counters["vs_native"] = t.runner / t.native;
}

// Prefill of the first n prompt tokens from position 0: in one forward_prompt call (batched),
// or fed with n forward_token calls.
void prefill(benchmark::State& state, bool batched) {
  Setup& s = setup();
  const auto prompt = std::span(s.prompt).first(size_t(state.range(0)));
  ModelRunner runner(s.device.get(), s.config, s.weights);
  baseline::NativeModel native(s.config, s.weights, s.threads());
  Totals totals;
  for (auto _ : state) {
    runner.reset();
    const double runner_seconds = seconds([&] {
      if (batched) {
        benchmark::DoNotOptimize(runner.forward_prompt(prompt));
        totals.encode += runner.last_timing().encode_seconds;
        return;
      }
      for (uint32_t token : prompt) {
        benchmark::DoNotOptimize(runner.forward_token(token));
        totals.encode += runner.last_timing().encode_seconds;
      }
    });
    state.SetIterationTime(runner_seconds);
    totals.runner += runner_seconds;
    std::vector<double> runs;
    for (int r = 0; r < kNativeRuns; ++r) {
      native.reset();
      runs.push_back(seconds([&] {
        if (batched) {
          benchmark::DoNotOptimize(native.forward_prompt(prompt));
          return;
        }
        for (uint32_t token : prompt) benchmark::DoNotOptimize(native.forward_token(token));
      }));
    }
    std::nth_element(runs.begin(), runs.begin() + kNativeRuns / 2, runs.end());
    totals.native += runs[kNativeRuns / 2];
  }
  report(state, double(prompt.size()), totals);
}

void BM_PrefillForwardPrompt(benchmark::State& state) { prefill(state, true); }
void BM_PrefillTokenByToken(benchmark::State& state) { prefill(state, false); }

// Greedy decode after an 8-token prompt: one forward_token per iteration; with `capture`, the
// program is recorded by an untimed first token. The baseline is fed the runner's tokens, so both
// decode at the same positions.
void decode(benchmark::State& state, bool capture) {
  Setup& s = setup();
  ModelRunner runner(s.device.get(), s.config, s.weights);
  baseline::NativeModel native(s.config, s.weights, s.threads());
  const auto prompt = std::span(s.prompt).first(8);
  uint32_t next = runner.forward_prompt(prompt);
  native.forward_prompt(prompt);
  runner.set_capture(capture);
  native.forward_token(next);
  next = runner.forward_token(next);
  state.counters["record_ms"] = runner.last_timing().record_seconds * 1e3;
  Totals totals;
  double execute = 0;
  for (auto _ : state) {
    const uint32_t token = next;
    const double runner_seconds = seconds([&] { next = runner.forward_token(token); });
    state.SetIterationTime(runner_seconds);
    totals.runner += runner_seconds;
    totals.encode += runner.last_timing().encode_seconds;
    execute += runner.last_timing().execute_seconds;
    totals.native += seconds([&] { benchmark::DoNotOptimize(native.forward_token(token)); });
  }
  report(state, 1, totals);
  state.counters["commit_ms_per_tok"] = execute * 1e3 / double(state.iterations());
}

void BM_Decode(benchmark::State& state) { decode(state, false); }
void BM_DecodeCaptured(benchmark::State& state) { decode(state, true); }

// Prompts of 1, 8, 32 and 128 tokens, each run once.
void prompt_lengths(benchmark::internal::Benchmark* b) {
  b->Arg(1)->Arg(8)->Arg(32)->Arg(128)->Iterations(1)->Unit(benchmark::kSecond)->UseManualTime();
}

BENCHMARK(BM_PrefillForwardPrompt)->Apply(prompt_lengths);
BENCHMARK(BM_PrefillTokenByToken)->Apply(prompt_lengths);
BENCHMARK(BM_Decode)->Iterations(8)->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK(BM_DecodeCaptured)->Iterations(8)->Unit(benchmark::kMillisecond)->UseManualTime();

}  // namespace
}  // namespace metalsim::model

int main(int argc, char** argv) {
  uint32_t layers = 0;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--model_layers=", 15) == 0)
      layers = uint32_t(std::stoul(argv[i] + 15));
    else rest.push_back(argv[i]);
  }
  int count = int(rest.size());
  metalsim::model::prepare(layers);
  benchmark::Initialize(&count, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
