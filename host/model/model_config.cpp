#include "host/model/model_config.h"

namespace metalsim::model {
namespace {

// The mat-vec kernel reads whole Q4_0 blocks: every in_dim is a multiple of 32.
std::string block_problem(const char* name, uint32_t value) {
  if (value % 32 == 0) return {};
  return std::string(name) + " = " + std::to_string(value) +
         " is not a multiple of 32 (the Q4_0 block along the mat-vec's input)";
}

}  // namespace

ModelConfig ModelConfig::small() {
  ModelConfig c;
  c.hidden = 64;
  c.heads = 4;
  c.kv_heads = 2;
  c.head_dim = 16;
  c.intermediate = 96;
  c.vocab = 256;
  c.layers = 2;
  return c;
}

std::string ModelConfig::problem() const {
  if (hidden == 0 || heads == 0 || kv_heads == 0 || head_dim == 0 || intermediate == 0 ||
      vocab == 0 || layers == 0)
    return "every size must be at least 1";
  for (const std::string& p :
       {block_problem("hidden", hidden), block_problem("heads * head_dim", q_dim()),
        block_problem("intermediate", intermediate)})
    if (!p.empty()) return p;
  if (heads % kv_heads != 0)
    return "kv_heads = " + std::to_string(kv_heads) +
           " does not divide heads = " + std::to_string(heads);
  if (head_dim % 2 != 0 || head_dim > 128)
    return "head_dim = " + std::to_string(head_dim) +
           ": RoPE needs it even, decode_attention at most 128";
  if (!(rms_eps > 0) || !(rope_theta > 1)) return "rms_eps must be > 0 and rope_theta > 1";
  if (kv_cache == KvCacheKind::chunked && (max_context == 0 || kv_chunk == 0))
    return "the chunked cache needs max_context and kv_chunk >= 1";
  if (kv_cache == KvCacheKind::rotating && window == 0)
    return "the rotating cache needs window >= 1";
  return {};
}

std::string ModelConfig::describe() const {
  std::string s = "hidden " + std::to_string(hidden) + ", " + std::to_string(heads) + " heads (" +
                  std::to_string(kv_heads) + " kv) x " + std::to_string(head_dim) + ", ffn " +
                  std::to_string(intermediate) + ", vocab " + std::to_string(vocab) + ", " +
                  std::to_string(layers) + " layers, ";
  if (kv_cache == KvCacheKind::chunked)
    return s + "chunked cache " + std::to_string(max_context) + " (chunks of " +
           std::to_string(kv_chunk) + ")";
  return s + "rotating cache, window " + std::to_string(window);
}

}  // namespace metalsim::model
