#include "kernels/attention/attention_baseline.h"

#include <Eigen/Dense>
#include <algorithm>
#include <limits>

#include "kernels/spec/baseline.h"

namespace metalsim::kernels::attention {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr int kBlock = 64;  // query rows per task

void gather(const half_t* data, const View& view, int b, int h, int first, int rows, Matrix& m) {
  for (int i = 0; i < rows; ++i)
    spec::baseline::widen(data + view.at(b, h, first + i), m.row(i).data(), size_t(m.cols()));
}

// Query rows first .. first + rows - 1 of head h.
void block(const AttentionProblem& p, const half_t* q, const half_t* k, const half_t* v,
           half_t* out, int b, int h, int first, int rows) {
  const float inf = std::numeric_limits<float>::infinity();
  const int kv_head = h / (p.heads / p.kv_heads);
  const int keys = p.causal ? std::min(p.seq_kv, p.kv_offset + first + rows) : p.seq_kv;
  Matrix Q(rows, p.head_dim), O(rows, p.head_dim);
  gather(q, p.q, b, h, first, rows, Q);
  if (keys <= 0) {
    O.setZero();
  } else {
    Matrix K(keys, p.head_dim), V(keys, p.head_dim);
    gather(k, p.k, b, kv_head, 0, keys, K);
    gather(v, p.v, b, kv_head, 0, keys, V);
    Matrix S = (Q * K.transpose()) * float(p.scale);
    for (int i = 0; i < rows; ++i) {
      auto row = S.row(i).array();
      if (p.causal)
        for (int j = std::max(0, p.kv_offset + first + i + 1); j < keys; ++j) row[j] = -inf;
      if (p.mask) {
        const double* m = p.mask + b * p.mask_batch_stride + int64_t(first + i) * p.seq_kv;
        for (int j = 0; j < keys; ++j) row[j] += float(m[j]);
      }
      const float mx = row.maxCoeff();
      if (mx == -inf) {
        row.setZero();  // fully masked: output 0
        continue;
      }
      row = (row == -inf).select(0.0f, (row - mx).exp());
      row *= 1.0f / row.sum();
    }
    O.noalias() = S * V;
  }
  for (int i = 0; i < rows; ++i)
    spec::baseline::narrow(O.row(i).data(), out + p.o.at(b, h, first + i), size_t(p.head_dim));
}

}  // namespace

void attention_baseline(const AttentionProblem& p, const half_t* q, const half_t* k,
                        const half_t* v, half_t* out) {
  const int blocks = (p.seq_q + kBlock - 1) / kBlock;
  const int64_t tasks = int64_t(p.batch) * p.heads * blocks;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t t = 0; t < tasks; ++t) {
    const int blk = int(t % blocks), h = int(t / blocks % p.heads), b = int(t / blocks / p.heads);
    const int first = blk * kBlock;
    block(p, q, k, v, out, b, h, first, std::min(kBlock, p.seq_q - first));
  }
}

}  // namespace metalsim::kernels::attention
