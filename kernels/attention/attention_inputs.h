#pragma once
// What the attention family's half specs (attention_spec.cpp) and float specs
// (attention_float_spec.cpp) share: the decode problem, the seeded inputs, and decode_attention's
// argument struct. Inputs are half values (widened for the float kernels), so the family's
// reference (in double, from half inputs) is exact for both.
#include <cstdint>
#include <vector>

#include "kernels/attention/attention_ref.h"
#include "kernels/spec/inputs.h"

namespace metalsim::kernels::attention {

struct DecodeParams {  // attention.metal's, for decode_attention and decode_attention_float
  uint64_t q_strides[2], k_strides[3], v_strides[3], o_strides[2];
  uint32_t num_heads, num_kv_heads, kv_len, head_dim;
  float scale;
};
DecodeParams decode_params(const AttentionProblem& a);

struct FlashAttentionParams {  // attention.metal's, for the flash_attention_forward kernels
  uint64_t q_strides[3], k_strides[3], v_strides[3], o_strides[3], mask_strides[2];
  uint32_t batch, num_heads, num_kv_heads, seq_q, seq_kv, head_dim, kv_offset, causal;
  float scale;
};
// The mask's strides are those of a [batch or 1, seq_q, seq_kv] mask (a.mask_batch_stride).
FlashAttentionParams flash_params(const AttentionProblem& a);
// flash_attention_forward's threadgroup memory: Q, K and V tiles of 32 half rows, and 32 x 32
// float scores.
inline int64_t flash_threadgroup_bytes(int64_t head_dim) {
  return 3 * 32 * head_dim * 2 + 32 * 32 * 4;
}

// The strides of `v`, outermost first: batch, head, then sequence (n of them).
void copy_strides(const View& v, uint64_t* strides, int n);

// One query row per head against a KV cache of `capacity` rows, of which kv_len are valid;
// interleaved: the cache is [B, cap, Hkv * D] (the model's), else [B, Hkv, cap, D].
AttentionProblem decode_problem(int batch, int heads, int kv_heads, int head_dim, int kv_len,
                                int capacity, bool interleaved);

// The scale the kernel gets: a float.
double kernel_scale(int head_dim);

struct AttentionInputs {
  std::vector<half_t> q, k, v;
};
// Q uniform in [-2, 2); the first seq_kv rows of K and V uniform in [-1, 1), the rest of the
// cache's `capacity` rows NaN (a kernel reading past the valid rows shows).
AttentionInputs make_inputs(const AttentionProblem& a, int capacity, spec::InputGenerator& gen);

}  // namespace metalsim::kernels::attention
