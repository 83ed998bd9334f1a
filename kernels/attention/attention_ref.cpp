#include "kernels/attention/attention_ref.h"

#include <Eigen/Dense>
#include <cmath>
#include <limits>

namespace metalsim::kernels::attention {
namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Matrix gather(const half_t* data, const View& view, int b, int h, int rows, int cols) {
  Matrix m(rows, cols);
  for (int i = 0; i < rows; ++i) {
    const half_t* row = data + view.at(b, h, i);
    for (int d = 0; d < cols; ++d) m(i, d) = double(row[d]);
  }
  return m;
}

bool attends(const AttentionProblem& p, int i, int j) { return !p.causal || j <= p.kv_offset + i; }

}  // namespace

View contiguous_view(int heads, int seq, int head_dim) {
  return {int64_t(heads) * seq * head_dim, int64_t(seq) * head_dim, head_dim};
}

View interleaved_view(int heads, int seq, int head_dim) {
  return {int64_t(seq) * heads * head_dim, head_dim, int64_t(heads) * head_dim};
}

namespace {

// softmax(Q K^T * scale + mask) V, or with |V| in place of V when `absolute_values`.
void attend(const AttentionProblem& p, const half_t* q, const half_t* k, const half_t* v,
            bool absolute_values, double* out) {
  const double inf = std::numeric_limits<double>::infinity();
  const int group = p.heads / p.kv_heads;
  for (int b = 0; b < p.batch; ++b)
    for (int h = 0; h < p.heads; ++h) {
      const Matrix Q = gather(q, p.q, b, h, p.seq_q, p.head_dim);
      const Matrix K = gather(k, p.k, b, h / group, p.seq_kv, p.head_dim);
      Matrix V = gather(v, p.v, b, h / group, p.seq_kv, p.head_dim);
      if (absolute_values) V = V.cwiseAbs();
      Matrix S = (Q * K.transpose()) * p.scale;
      for (int i = 0; i < p.seq_q; ++i)
        for (int j = 0; j < p.seq_kv; ++j) {
          if (!attends(p, i, j)) S(i, j) = -inf;
          else if (p.mask) S(i, j) += p.mask[b * p.mask_batch_stride + int64_t(i) * p.seq_kv + j];
        }
      for (int i = 0; i < p.seq_q; ++i) {
        const double mx = S.row(i).maxCoeff();
        if (mx == -inf) {
          S.row(i).setZero();  // fully masked: output 0
          continue;
        }
        // std::exp, not Eigen's vectorised exp: exp(-inf) must be exactly 0.
        S.row(i) = S.row(i).unaryExpr([mx](double x) { return std::exp(x - mx); });
        S.row(i) /= S.row(i).sum();
      }
      const Matrix O = S * V;
      for (int i = 0; i < p.seq_q; ++i)
        for (int d = 0; d < p.head_dim; ++d) out[p.o.at(b, h, i) + d] = O(i, d);
    }
}

}  // namespace

void attention_reference(const AttentionProblem& p, const half_t* q, const half_t* k,
                         const half_t* v, double* out) {
  attend(p, q, k, v, false, out);
}

void attention_magnitudes(const AttentionProblem& p, const half_t* q, const half_t* k,
                          const half_t* v, double* out) {
  attend(p, q, k, v, true, out);
}

}  // namespace metalsim::kernels::attention
