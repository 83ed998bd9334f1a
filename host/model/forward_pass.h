#pragma once
// Encodes one forward call (n tokens from `position`) into one compute encoder, following the
// gpu-perf-phase3 document's forward_prompt step by step:
//   embedding lookup of every token -> hidden_a
//   per layer:  RMSNorm -> hidden_b; batched Q, K, V mat-vecs; RoPE (token t at position + t);
//               per token, at its buffer offsets: KV append, then attention over the cache
//               (token t sees the tokens before it: causal by order); batched O mat-vec
//               accumulated into hidden_a (the residual); RMSNorm -> hidden_b; batched gate and
//               up; SiLU(gate) * up -> silu; batched down accumulated into hidden_a
//   last token only: final RMSNorm, lm_head (the tied embedding) -> logits, argmax -> result
// RMSNorm, RoPE and SwiGLU are per token in the document because its kernels take one row;
// ours take every row of the batch in one dispatch, with the same per-row arithmetic, so they
// are dispatched once per step. KV append and attention stay per token (causal order).
#include <cstdint>
#include <vector>

#include "host/model/batch_buffers.h"
#include "host/model/device_weights.h"
#include "host/model/kv_cache.h"
#include "host/model/model_config.h"
#include "host/model/model_kernels.h"

namespace metalsim::model {

// Where a recorded forward pass depends on the position: encode() notes them while it records
// (into an indirect command buffer), repoint() changes them before each replay. Everything else
// a call reads is static: the weights, the batch buffers (the token ids are written into them),
// the logits.
struct StepPatches {
  struct Token {
    uint32_t layer, token;                     // token: its index in the batch
    size_t append_command, attention_command;  // command indices
    BufferSlice attention_params;
  };
  std::vector<BufferSlice> rope_params;  // per layer
  std::vector<Token> tokens;             // per layer, per token
};

struct ForwardPass {
  const ModelConfig& config;
  const ModelKernels& kernels;
  const DeviceWeights& weights;
  KvCache& cache;
  MTL::Buffer* logits;  // vocab floats
  MTL::Buffer* result;  // one uint: the next token

  // `patches`, when given, receives the position-dependent places (recording).
  void encode(const Encoding& e, const BatchBuffers& b, uint32_t position,
              StepPatches* patches = nullptr) const;
  // Points a recorded pass at `position`: the RoPE position, each token's cache slot, the
  // cache buffers (the chunked cache reallocates as it grows) and the attention lengths.
  void repoint(const StepPatches& patches, MTL::IndirectCommandBuffer* commands,
               uint32_t position) const;

 private:
  void encode_attention_block(const Encoding& e, const BatchBuffers& b, uint32_t layer,
                              uint32_t position, StepPatches* patches) const;
  // The K and V rows of the cache slot that holds `position`, in layer `layer`.
  BufferSlice key_slot(uint32_t layer, uint32_t position) const;
  BufferSlice value_slot(uint32_t layer, uint32_t position) const;
  void encode_ffn_block(const Encoding& e, const BatchBuffers& b, uint32_t layer) const;
};

}  // namespace metalsim::model
