#include "kernels/attention/attention_inputs.h"

#include <cmath>
#include <limits>

namespace metalsim::kernels::attention {

FlashAttentionParams flash_params(const AttentionProblem& a) {
  FlashAttentionParams p{};
  copy_strides(a.q, p.q_strides, 3);
  copy_strides(a.k, p.k_strides, 3);
  copy_strides(a.v, p.v_strides, 3);
  copy_strides(a.o, p.o_strides, 3);
  p.mask_strides[0] = uint64_t(a.mask_batch_stride);
  p.mask_strides[1] = uint64_t(a.seq_kv);
  p.batch = uint32_t(a.batch);
  p.num_heads = uint32_t(a.heads);
  p.num_kv_heads = uint32_t(a.kv_heads);
  p.seq_q = uint32_t(a.seq_q);
  p.seq_kv = uint32_t(a.seq_kv);
  p.head_dim = uint32_t(a.head_dim);
  p.kv_offset = uint32_t(a.kv_offset);
  p.causal = a.causal ? 1 : 0;
  p.scale = float(a.scale);
  return p;
}

void copy_strides(const View& v, uint64_t* strides, int n) {
  const int64_t all[3] = {v.batch, v.head, v.seq};
  for (int i = 0; i < n; ++i) strides[i] = uint64_t(all[i]);
}

DecodeParams decode_params(const AttentionProblem& a) {
  DecodeParams p{};
  copy_strides(a.q, p.q_strides, 2);
  copy_strides(a.k, p.k_strides, 3);
  copy_strides(a.v, p.v_strides, 3);
  copy_strides(a.o, p.o_strides, 2);
  p.num_heads = uint32_t(a.heads);
  p.num_kv_heads = uint32_t(a.kv_heads);
  p.kv_len = uint32_t(a.seq_kv);
  p.head_dim = uint32_t(a.head_dim);
  p.scale = float(a.scale);
  return p;
}

double kernel_scale(int head_dim) { return double(1.0f / std::sqrt(float(head_dim))); }

AttentionProblem decode_problem(int batch, int heads, int kv_heads, int head_dim, int kv_len,
                                int capacity, bool interleaved) {
  AttentionProblem a;
  a.batch = batch;
  a.heads = heads;
  a.kv_heads = kv_heads;
  a.head_dim = head_dim;
  a.seq_q = 1;
  a.seq_kv = kv_len;
  a.scale = kernel_scale(head_dim);
  a.q = a.o = View{int64_t(heads) * head_dim, head_dim, 0};
  a.k = a.v = interleaved ? interleaved_view(kv_heads, capacity, head_dim)
                          : contiguous_view(kv_heads, capacity, head_dim);
  return a;
}

AttentionInputs make_inputs(const AttentionProblem& a, int capacity, spec::InputGenerator& gen) {
  const size_t q_n = size_t(a.batch) * a.heads * a.seq_q * a.head_dim;
  const size_t kv_n = size_t(a.batch) * a.kv_heads * capacity * a.head_dim;
  AttentionInputs in;
  in.q = gen.uniform_vector<half_t>(q_n, -2.0, 2.0);
  in.k.assign(kv_n, half_t(std::numeric_limits<float>::quiet_NaN()));
  in.v = in.k;
  for (int b = 0; b < a.batch; ++b)
    for (int h = 0; h < a.kv_heads; ++h)
      for (int j = 0; j < a.seq_kv; ++j)
        for (int d = 0; d < a.head_dim; ++d) {
          in.k[a.k.at(b, h, j) + d] = half_t(gen.uniform(-1.0, 1.0));
          in.v[a.v.at(b, h, j) + d] = half_t(gen.uniform(-1.0, 1.0));
        }
  return in;
}

}  // namespace metalsim::kernels::attention
