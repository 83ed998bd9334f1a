#pragma once
// The model runner's fast native baseline (issue 24 item 6): the same transformer over the same
// ModelWeights, written for speed in float C++ with Eigen on the same OpenMP threads, sharing none
// of the runner's code (host/model/) and none of the reference's (tests/model/reference_model.h):
//   embedding   the token's Q4_0 row decoded
//   per layer   RMSNorm; Q, K, V; RoPE (element d pairs with d + head_dim / 2); K and V appended
//               to a float cache of max_context positions; causal GQA attention per head,
//               softmax(Q K^T / sqrt(head_dim)) V; O added to the residual; RMSNorm; SwiGLU FFN
//               (gate, up, silu(gate) * up, down added to the residual)
//   the end     final RMSNorm of the last token, the tied lm_head (the embedding's rows), argmax
// Every projection reads the Q4_0 blocks inside the call, as the kernels do: one token (decode)
// takes each row's dot product with the blocks dequantized in registers (rows over the threads);
// several tokens (prefill) dequantize panels of 64 rows into floats and multiply them with
// Eigen's GEMM while in cache (panels over the threads). No double, no per-element call.
//
// A speed yardstick, not a checking reference (tests/model/native_baseline_test.cpp holds it to the
// reference's logits within a float bound). Only std::vector and std::span cross this header: the
// .cpp is compiled with the kernels' target flags (AVX2, FMA, F16C), under which Eigen aligns its
// allocations differently from the rest of the program (kernels/trellis/trellis_baseline.h).
#include <cstdint>
#include <span>
#include <vector>

#include "host/model/model_config.h"
#include "host/model/model_weights.h"

namespace metalsim::baseline {

class NativeModel {
 public:
  // Keeps references: config and weights must outlive the model. `threads`: the OpenMP threads
  // every parallel loop uses (0: omp_get_max_threads(), as the engine's workers default).
  // Throws std::invalid_argument for a rotating KV cache (not modelled: chunked only) or
  // config.problem() not empty.
  NativeModel(const model::ModelConfig& config, const model::ModelWeights& weights,
              int threads = 0);

  // The next token (greedy) after `tokens`, fed from position(); the position advances by their
  // count. Throws std::out_of_range past max_context or for a token outside the vocabulary.
  uint32_t forward_prompt(std::span<const uint32_t> tokens);
  uint32_t forward_token(uint32_t token) { return forward_prompt(std::span(&token, 1)); }

  uint32_t position() const { return position_; }
  // The last call's logits for its last token (vocab floats).
  std::span<const float> logits() const { return logits_; }
  int threads() const { return threads_; }
  void reset() { position_ = 0; }

 private:
  void attention_block(uint32_t layer, uint32_t tokens);
  void ffn_block(uint32_t layer, uint32_t tokens);
  void attend(uint32_t layer, uint32_t tokens);
  void rotate(float* rows, uint32_t tokens, uint32_t heads) const;
  void prepare_rotation(uint32_t tokens);
  void grow(uint32_t tokens);

  const model::ModelConfig& config_;
  const model::ModelWeights& weights_;
  int threads_;
  uint32_t position_ = 0;
  std::vector<float> inverse_frequency_;  // [head_dim / 2]
  std::vector<float> cos_, sin_;          // this call's [tokens][head_dim / 2]
  std::vector<float> keys_, values_;      // per layer [max_context][kv_dim]
  std::vector<float> x_, normed_, q_, k_, v_, attended_, gate_, up_;  // [tokens][width]
  std::vector<std::vector<float>> scratch_;  // per thread: a weight panel, attention scores
  std::vector<float> logits_;
};

}  // namespace metalsim::baseline
