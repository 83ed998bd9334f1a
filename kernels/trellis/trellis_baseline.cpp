#include "kernels/trellis/trellis_baseline.h"

#include <Eigen/Core>
#include <algorithm>

namespace metalsim::kernels::trellis {
namespace {

// Maps over std::vector storage only (the header says why).
using MatrixXfR = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapR = Eigen::Map<MatrixXfR>;
using ConstMapR = Eigen::Map<const MatrixXfR>;

std::vector<float> widened(std::span<const half_t> v) {
  std::vector<float> out(v.size());
  spec::baseline::widen(v.data(), out.data(), v.size());
  return out;
}

// Expert e's [K, N] weights, as the reference dequantizes them (exact, then half).
std::vector<float> dense_weights(const TrellisWeights& w, uint32_t e) {
  const uint32_t K = w.shape.K, N = w.shape.N;
  std::vector<float> out(size_t(K) * N);
#pragma omp parallel for schedule(static)
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t n = 0; n < N; ++n) out[size_t(k) * N + n] = dequantized_weight(w, e, k, n);
  return out;
}

// c = a x w over column blocks of w, one block per task.
void gemm(const ConstMapR& a, const ConstMapR& w, MapR c) {
  constexpr Eigen::Index kColumns = 64;  // per task: enough work, and tasks for every thread
  const Eigen::Index n = w.cols(), tasks = (n + kColumns - 1) / kColumns;
#pragma omp parallel for schedule(static)
  for (Eigen::Index t = 0; t < tasks; ++t) {
    const Eigen::Index first = t * kColumns, width = std::min(kColumns, n - first);
    c.middleCols(first, width).noalias() = a * w.middleCols(first, width);
  }
}

}  // namespace

GemmBaselineData prepare_gemm_baseline(std::span<const half_t> a, uint32_t M,
                                       const TrellisWeights& weights) {
  GemmBaselineData d;
  d.M = M;
  d.K = weights.shape.K;
  d.N = weights.shape.N;
  d.a = widened(a);
  d.w = dense_weights(weights, 0);
  d.c.assign(size_t(M) * d.N, 0.0f);
  return d;
}

void gemm_baseline(GemmBaselineData& d) {
  gemm(ConstMapR(d.a.data(), d.M, d.K), ConstMapR(d.w.data(), d.K, d.N),
       MapR(d.c.data(), d.M, d.N));
}

MoeBaselineData prepare_moe_baseline(const MoeProblem& p) {
  MoeBaselineData d;
  d.shape = p.shape;
  d.routing = p.routing;
  d.x = widened(p.x);
  for (uint32_t e = 0; e < p.shape.experts; ++e) {
    d.gate.push_back(dense_weights(p.gate, e));
    d.up.push_back(dense_weights(p.up, e));
    d.down.push_back(dense_weights(p.down, e));
  }
  d.out.assign(size_t(p.shape.M) * p.shape.hidden, 0.0f);
  return d;
}

void moe_baseline(MoeBaselineData& d) {
  const Eigen::Index hidden = d.shape.hidden, inter = d.shape.intermediate;
  const ConstMapR x(d.x.data(), d.shape.M, hidden);
  MapR out(d.out.data(), d.shape.M, hidden);
  out.setZero();
  for (uint32_t e = 0; e < d.shape.experts; ++e) {
    std::vector<uint32_t> rows;
    std::vector<float> probs;
    for (uint32_t i = 0; i < d.routing.expert_ids.size(); ++i)
      if (d.routing.expert_ids[i] == e) {
        rows.push_back(i / d.routing.top_k);
        probs.push_back(d.routing.probs[i]);
      }
    if (rows.empty()) continue;
    // Plain vectors under Eigen maps: no Eigen-owned allocation in this file (see the header).
    const auto count = Eigen::Index(rows.size());
    std::vector<float> xe(size_t(count * hidden)), g(size_t(count * inter)),
        u(size_t(count * inter)), h(size_t(count * inter)), down(size_t(count * hidden));
    MapR xm(xe.data(), count, hidden), gm(g.data(), count, inter), um(u.data(), count, inter),
        hm(h.data(), count, inter), dm(down.data(), count, hidden);
    for (Eigen::Index r = 0; r < count; ++r) xm.row(r) = x.row(rows[size_t(r)]);
    gemm(ConstMapR(xe.data(), count, hidden), ConstMapR(d.gate[e].data(), hidden, inter), gm);
    gemm(ConstMapR(xe.data(), count, hidden), ConstMapR(d.up[e].data(), hidden, inter), um);
    hm.array() = gm.array() / (1 + (-gm.array()).exp()) * um.array();
    gemm(ConstMapR(h.data(), count, inter), ConstMapR(d.down[e].data(), inter, hidden), dm);
    for (Eigen::Index r = 0; r < count; ++r)
      out.row(rows[size_t(r)]) += probs[size_t(r)] * dm.row(r);
  }
}

}  // namespace metalsim::kernels::trellis
