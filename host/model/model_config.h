#pragma once
// The shape of a decoder-only transformer (Llama form: pre-norm RMSNorm, RoPE, grouped-query
// attention, SwiGLU FFN, tied embeddings) and of its KV cache. SmolLM-135M's shapes are the
// default; every size can change so that tests run small models.
#include <cstdint>
#include <string>

namespace metalsim::model {

enum class KvCacheKind {
  chunked,   // go-mlx's KVCache: grows in chunks of kv_chunk tokens up to max_context
  rotating,  // go-mlx's RotatingKVCache: the last `window` tokens, written round the ring
};

struct ModelConfig {
  uint32_t hidden = 576;
  uint32_t heads = 9;
  uint32_t kv_heads = 3;   // divides heads (GQA)
  uint32_t head_dim = 64;  // even, at most 128 (decode_attention)
  uint32_t intermediate = 1536;
  uint32_t vocab = 49152;
  uint32_t layers = 30;
  float rms_eps = 1e-5f;
  float rope_theta = 10000.0f;

  KvCacheKind kv_cache = KvCacheKind::chunked;
  uint32_t max_context = 2048;  // chunked: positions at or past it are an error
  uint32_t kv_chunk = 256;      // chunked: growth step, in tokens
  uint32_t window = 0;          // rotating: tokens kept, and the attention window

  static ModelConfig smollm_135m() { return {}; }
  // Two layers of every part SmolLM has, small: hidden 64, 4 heads (2 kv) x 16, ffn 96,
  // vocab 256 (what the tests run).
  static ModelConfig small();

  uint32_t q_dim() const { return heads * head_dim; }
  uint32_t kv_dim() const { return kv_heads * head_dim; }
  // "" when the sizes can run; else what is wrong, in words.
  std::string problem() const;
  // "hidden 576, 9 heads (3 kv) x 64, ffn 1536, vocab 49152, 30 layers, chunked cache 2048".
  std::string describe() const;
};

}  // namespace metalsim::model
