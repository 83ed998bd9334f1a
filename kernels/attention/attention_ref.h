#pragma once
// The attention family's reference: plain softmax(Q K^T * scale + mask) V per (batch, head),
// in double with Eigen, from the same half inputs the kernels read. No tiling, no online
// softmax: the naive attention ADR-003's success criterion compares against.
#include <cstdint>

namespace metalsim::kernels::attention {

using half_t = _Float16;

// Element strides of a [B, H, L, D] view (the last dimension is dense).
struct View {
  int64_t batch = 0, head = 0, seq = 0;
  int64_t at(int64_t b, int64_t h, int64_t i) const { return b * batch + h * head + i * seq; }
};

struct AttentionProblem {
  int batch = 1, heads = 1, kv_heads = 1;  // kv_heads divides heads (GQA)
  int seq_q = 1, seq_kv = 1, head_dim = 64;
  bool causal = false;
  int kv_offset = 0;  // query row i is at position kv_offset + i
  double scale = 0.125;
  View q, k, v, o;  // k and v index kv heads
  // Optional additive mask [mask_batch, 1, seq_q, seq_kv]: element (b, i, j) at
  // mask[b * mask_batch_stride + i * seq_kv + j]; mask_batch_stride 0 broadcasts.
  const double* mask = nullptr;
  int64_t mask_batch_stride = 0;
};

// Writes out[o.at(b, h, i) + d] for every b, h, i < seq_q, d < head_dim. A row whose every key
// is masked out (all scores -inf) gets 0, as the kernels define it.
void attention_reference(const AttentionProblem& p, const half_t* q, const half_t* k,
                         const half_t* v, double* out);

// The same weights applied to |V|: out = sum_j p_j |v_j| / sum_j p_j, each output's scale of
// float rounding in its weighted sum (the output itself may cancel near 0 while its terms do
// not; spec::compare_output_of_sums, docs/kernels/attention.md "Tolerance").
void attention_magnitudes(const AttentionProblem& p, const half_t* q, const half_t* k,
                          const half_t* v, double* out);

// The strides of a contiguous [B, H, L, D] tensor, and of the [B, H, L, D] view over a
// contiguous [B, L, H*D] tensor (MLX's AsStrided virtual transpose).
View contiguous_view(int heads, int seq, int head_dim);
View interleaved_view(int heads, int seq, int head_dim);

}  // namespace metalsim::kernels::attention
