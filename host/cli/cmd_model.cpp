// metalsim model: a transformer with SmolLM-135M's shapes (or a smaller one), Q4_0 weights
// generated from a seed, run end to end by metalsim kernels through the host API (host/model/,
// docs/pipeline.md). Prints prefill tokens per second of forward_prompt (batched mat-vecs)
// against feeding the same prompt token by token with forward_token, and greedy decode tokens
// per second with the host-side (encoding) time per token, without and with capture (each
// forward_token replayed from an MTL::IndirectCommandBuffer recorded once).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "host/cli/commands.h"
#include "host/model/model_runner.h"
#include "kernels/spec/inputs.h"

namespace metalsim::cli {
namespace {

struct ModelOptions {
  std::string shape = "smollm";
  uint32_t layers = 0, vocab = 0;  // 0: the shape's
  std::string cache = "chunked";
  uint32_t window = 256;
  uint32_t prompt = 32, decode = 16;
  bool capture = true;
  bool token_by_token = true;
  RunFlags flags;  // --seed: the weights' (and, with seed + 1, the prompt's); --workers, --checks
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string fixed(double v, int digits = 1) {
  char s[64];
  std::snprintf(s, sizeof s, "%.*f", digits, v);
  return s;
}

// The configuration the options name; "" or what is wrong in `why`.
model::ModelConfig make_config(const ModelOptions& o, std::string& why) {
  model::ModelConfig c = model::ModelConfig::smollm_135m();
  if (o.shape == "small") c = model::ModelConfig::small();
  else if (o.shape != "smollm") why = "--shape must be smollm or small, not '" + o.shape + "'";
  if (o.layers) c.layers = o.layers;
  if (o.vocab) c.vocab = o.vocab;
  if (o.cache == "rotating") {
    c.kv_cache = model::KvCacheKind::rotating;
    c.window = o.window;
  } else if (o.cache != "chunked") {
    why = "--cache must be chunked or rotating, not '" + o.cache + "'";
  }
  if (why.empty()) why = c.problem();
  return c;
}

struct Throughput {
  double seconds = 0;
  uint32_t next = 0;
  double encode_seconds = 0;  // summed over the calls
  double record_seconds = 0;  // capture: recording the programs
};

Throughput prefill_batched(model::ModelRunner& r, std::span<const uint32_t> prompt) {
  const auto t0 = std::chrono::steady_clock::now();
  Throughput t;
  t.next = r.forward_prompt(prompt);
  t.seconds = seconds_since(t0);
  t.encode_seconds = r.last_timing().encode_seconds;
  return t;
}

Throughput prefill_token_by_token(model::ModelRunner& r, std::span<const uint32_t> prompt) {
  const auto t0 = std::chrono::steady_clock::now();
  Throughput t;
  for (uint32_t token : prompt) {
    t.next = r.forward_token(token);
    t.encode_seconds += r.last_timing().encode_seconds;
  }
  t.seconds = seconds_since(t0);
  return t;
}

Throughput decode(model::ModelRunner& r, uint32_t first, uint32_t count,
                  std::vector<uint32_t>& out) {
  const auto t0 = std::chrono::steady_clock::now();
  Throughput t;
  t.next = first;
  for (uint32_t i = 0; i < count; ++i) {
    out.push_back(t.next);
    t.next = r.forward_token(t.next);
    t.encode_seconds += r.last_timing().encode_seconds;
    t.record_seconds += r.last_timing().record_seconds;
  }
  t.seconds = seconds_since(t0);
  return t;
}

std::string rate(uint32_t tokens, double seconds) { return fixed(tokens / seconds, 2) + " tok/s"; }

int run_model(const ModelOptions& o, Io& io) {
  std::string why;
  const model::ModelConfig config = make_config(o, why);
  if (!why.empty()) {
    io.err << "metalsim model: " << why << "\n";
    return kExitUsage;
  }
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  device->setExecutionOptions(o.flags.options);
  io.out << "model      " << config.describe() << "\n";
  auto t0 = std::chrono::steady_clock::now();
  const model::ModelWeights weights = model::generate_weights(config, o.flags.seed);
  io.out << "weights    Q4_0 from seed " << o.flags.seed << " in " << fixed(seconds_since(t0), 2)
         << " s\n";
  spec::InputGenerator gen(o.flags.seed + 1);
  std::vector<uint32_t> prompt(o.prompt);
  for (uint32_t& t : prompt) t = uint32_t(gen.integer(0, config.vocab - 1));

  model::ModelRunner runner(device.get(), config, weights);
  const Throughput batched = prefill_batched(runner, prompt);
  io.out << "prefill    " << o.prompt << " tokens, forward_prompt: " << fixed(batched.seconds, 3)
         << " s = " << rate(o.prompt, batched.seconds) << " (one command buffer of "
         << runner.last_timing().dispatches << " dispatches, encoded in "
         << fixed(batched.encode_seconds * 1e3, 2) << " ms)\n";
  std::unique_ptr<model::ModelRunner> single;
  if (o.token_by_token) {
    single = std::make_unique<model::ModelRunner>(device.get(), config, weights);
    const Throughput each = prefill_token_by_token(*single, prompt);
    io.out << "           token by token, forward_token: " << fixed(each.seconds, 3)
           << " s = " << rate(o.prompt, each.seconds) << "; forward_prompt is "
           << fixed(each.seconds / batched.seconds, 2) << "x faster, next token "
           << (each.next == batched.next ? "the same" : "DIFFERENT") << "\n";
  }
  std::vector<uint32_t> generated;
  const Throughput d = decode(runner, batched.next, o.decode, generated);
  if (o.decode > 0)
    io.out << "decode     " << o.decode << " tokens, forward_token: " << rate(o.decode, d.seconds)
           << ", " << fixed(d.seconds / o.decode * 1e3, 2)
           << " ms per token, of which host-side encoding "
           << fixed(d.encode_seconds / o.decode * 1e3, 3) << " ms\n";
  if (o.capture && o.decode > 0) {
    // The token-by-token runner holds the same state as `runner` had after its prefill (bit
    // for bit): decoding it with capture must give the same tokens. Without it, capture goes
    // on from where `runner` is.
    model::ModelRunner* target = single ? single.get() : &runner;
    target->set_capture(true);
    std::vector<uint32_t> replayed;
    const Throughput c = decode(*target, single ? batched.next : d.next, o.decode, replayed);
    const double replay_seconds = c.seconds - c.record_seconds;
    io.out << "           with capture: " << o.decode
           << " tokens replayed from an indirect command buffer of "
           << target->last_timing().dispatches << " commands (recorded once in "
           << fixed(c.record_seconds * 1e3, 2) << " ms): " << rate(o.decode, c.seconds) << ", "
           << fixed(replay_seconds / o.decode * 1e3, 2)
           << " ms per token without the recording, of which host-side "
           << fixed(c.encode_seconds / o.decode * 1e3, 3) << " ms";
    if (single) io.out << "; tokens " << (replayed == generated ? "the same" : "DIFFERENT");
    io.out << "\n";
  }
  io.out << "generated ";
  for (uint32_t t : generated) io.out << " " << t;
  io.out << "\nkv cache   position " << runner.position() << ", capacity "
         << runner.kv_cache().capacity() << " slots\n";
  return kExitOk;
}

}  // namespace

Action setup_model(CLI::App& sub, Io& io) {
  auto o = std::make_shared<ModelOptions>();
  sub.add_option("--shape", o->shape,
                 "smollm (SmolLM-135M's shapes) or small (2 layers, hidden 64)")
      ->capture_default_str();
  sub.add_option("--layers", o->layers, "override the shape's layer count");
  sub.add_option("--vocab", o->vocab, "override the shape's vocabulary size");
  sub.add_option("--cache", o->cache, "chunked (grows by 256 up to 2048) or rotating")
      ->capture_default_str();
  sub.add_option("--window", o->window, "the rotating cache's window")->capture_default_str();
  sub.add_option("--prompt", o->prompt, "prompt tokens (random ids from the seed)")
      ->capture_default_str();
  sub.add_option("--decode", o->decode, "tokens generated greedily after the prompt")
      ->capture_default_str();
  sub.add_flag("!--no-token-by-token", o->token_by_token,
               "skip the token-by-token prefill comparison");
  sub.add_flag("!--no-capture", o->capture,
               "skip decoding with capture (replay from an indirect command buffer)");
  // The device's default checks: METALSIM_CHECKS, else sync,mem.
  o->flags.add_to(sub, metalsim::CheckSet::from_environment().str());
  return [o, &io] { return run_model(*o, io); };
}

}  // namespace metalsim::cli
