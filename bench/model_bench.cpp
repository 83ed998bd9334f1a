// The model runner at SmolLM-135M's shapes (host/model/, docs/pipeline.md): prefill tokens per
// second of forward_prompt (batched mat-vecs) against token-by-token forward_token for prompts
// of 1, 8, 32 and 128 tokens, and decode tokens per second with the host-side (encoding) time
// per token, without and with capture (BM_DecodeCaptured: forward_token replayed from an
// MTL::IndirectCommandBuffer recorded once, before the timed iterations).
// Run: build/release/bench/model_bench [--model_layers=N] [--benchmark_filter=Prefill]
//      (--model_layers: fewer layers than SmolLM's 30, for a quick look)
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "host/model/model_runner.h"
#include "kernels/spec/inputs.h"

namespace metalsim::model {
namespace {

struct Setup {
  NS::SharedPtr<MTL::Device> device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  ModelConfig config = ModelConfig::smollm_135m();
  ModelWeights weights;
  std::vector<uint32_t> prompt;  // 128 random ids
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
}

void report(benchmark::State& state, double tokens, double encode_seconds) {
  const double iterations = double(state.iterations());
  state.counters["tok_per_s"] =
      benchmark::Counter(tokens * iterations, benchmark::Counter::kIsRate);
  state.counters["encode_ms_per_tok"] = encode_seconds * 1e3 / (tokens * iterations);
}

// Prefill of the first n prompt tokens from position 0: in one forward_prompt call (batched),
// or fed with n forward_token calls.
void prefill(benchmark::State& state, bool batched) {
  Setup& s = setup();
  const auto prompt = std::span(s.prompt).first(size_t(state.range(0)));
  ModelRunner runner(s.device.get(), s.config, s.weights);
  double encode = 0;
  for (auto _ : state) {
    runner.reset();
    if (batched) {
      benchmark::DoNotOptimize(runner.forward_prompt(prompt));
      encode += runner.last_timing().encode_seconds;
      continue;
    }
    for (uint32_t token : prompt) {
      benchmark::DoNotOptimize(runner.forward_token(token));
      encode += runner.last_timing().encode_seconds;
    }
  }
  report(state, double(prompt.size()), encode);
}

void BM_PrefillForwardPrompt(benchmark::State& state) { prefill(state, true); }
void BM_PrefillTokenByToken(benchmark::State& state) { prefill(state, false); }

// Greedy decode after an 8-token prompt: one forward_token per iteration; with `capture`, the
// program is recorded by an untimed first token.
void decode(benchmark::State& state, bool capture) {
  Setup& s = setup();
  ModelRunner runner(s.device.get(), s.config, s.weights);
  uint32_t next = runner.forward_prompt(std::span(s.prompt).first(8));
  runner.set_capture(capture);
  next = runner.forward_token(next);
  state.counters["record_ms"] = runner.last_timing().record_seconds * 1e3;
  double encode = 0, execute = 0;
  for (auto _ : state) {
    next = runner.forward_token(next);
    encode += runner.last_timing().encode_seconds;
    execute += runner.last_timing().execute_seconds;
  }
  report(state, 1, encode);
  state.counters["commit_ms_per_tok"] = execute * 1e3 / double(state.iterations());
}

void BM_Decode(benchmark::State& state) { decode(state, false); }
void BM_DecodeCaptured(benchmark::State& state) { decode(state, true); }

// Prompts of 1, 8, 32 and 128 tokens, each run once.
void prompt_lengths(benchmark::internal::Benchmark* b) {
  b->Arg(1)->Arg(8)->Arg(32)->Arg(128)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
}

BENCHMARK(BM_PrefillForwardPrompt)->Apply(prompt_lengths);
BENCHMARK(BM_PrefillTokenByToken)->Apply(prompt_lengths);
BENCHMARK(BM_Decode)->Iterations(8)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DecodeCaptured)->Iterations(8)->Unit(benchmark::kMillisecond)->UseRealTime();

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
