#include "kernels/trellis/trellis_ref.h"

#include <cmath>

namespace metalsim::kernels::trellis {
namespace {

constexpr double kHalfUlp = 0x1p-11;          // half's unit roundoff
constexpr double kFloatUlp = 0x1p-24;         // float's
constexpr double kHalfSubnormal = 0x1p-25;    // rounding error of a half subnormal
constexpr double kSiluSlope = 1.1;            // max |d silu(g) / dg| = 1.0998...
constexpr double kSiluFloat = 8 * kFloatUlp;  // float exp, add, divide, multiply

MatrixXdR to_matrix(std::span<const half_t> values, uint32_t rows, uint32_t cols) {
  MatrixXdR m(rows, cols);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) m(r, c) = double(values[size_t(r) * cols + c]);
  return m;
}

double silu(double g) {
  return g / (1 + std::exp(-g));
}
double silu_slope(double g) {
  const double s = 1 / (1 + std::exp(-g));
  return s * (1 + g * (1 - s));
}

}  // namespace

float dequantized_weight(const TrellisWeights& w, uint32_t e, uint32_t k, uint32_t n) {
  uint32_t idx = w.index(e, k, n);
  if (idx >= w.shape.n_levels) idx = 0;
  const float scale = w.scales_of(e)[size_t(k / w.shape.group_size) * w.shape.N + n];
  const float value = w.grid[idx] * scale * w.su_of(e)[k] * w.sv_of(e)[n];
  return float(half_t(value));
}

MatrixXdR dequantize(const TrellisWeights& w, uint32_t e) {
  MatrixXdR dense(w.shape.K, w.shape.N);
  for (uint32_t k = 0; k < w.shape.K; ++k)
    for (uint32_t n = 0; n < w.shape.N; ++n) dense(k, n) = dequantized_weight(w, e, k, n);
  return dense;
}

Reference gemm_ref(std::span<const half_t> a, uint32_t M, const TrellisWeights& w) {
  const MatrixXdR am = to_matrix(a, M, w.shape.K), wm = dequantize(w);
  const MatrixXdR c = am * wm;
  const MatrixXdR magnitude = am.cwiseAbs() * wm.cwiseAbs();
  const double gamma = (w.shape.K + 2) * kFloatUlp;
  Reference r;
  r.value.assign(c.data(), c.data() + c.size());
  r.bound.resize(r.value.size());
  for (size_t i = 0; i < r.value.size(); ++i)
    r.bound[i] = kHalfUlp * std::fabs(r.value[i]) + gamma * magnitude.data()[i] + kHalfSubnormal;
  return r;
}

Reference moe_ref(std::span<const half_t> x, const MoeRouting& routing, const TrellisWeights& gate,
                  const TrellisWeights& up, const TrellisWeights& down) {
  const uint32_t M = routing.M, K = gate.shape.K, N = gate.shape.N;
  const MatrixXdR xm = to_matrix(x, M, K);
  const double gamma_k = (K + 2) * kFloatUlp, gamma_n = (N + 2) * kFloatUlp;
  MatrixXdR out = MatrixXdR::Zero(M, K), bound = MatrixXdR::Zero(M, K);
  for (uint32_t e = 0; e < gate.shape.experts; ++e) {
    const MatrixXdR wg = dequantize(gate, e), wu = dequantize(up, e), wd = dequantize(down, e);
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t j = 0; j < routing.top_k; ++j) {
        if (routing.expert_ids[size_t(m) * routing.top_k + j] != e) continue;
        const double p = routing.probs[size_t(m) * routing.top_k + j];
        const Eigen::RowVectorXd g = xm.row(m) * wg, u = xm.row(m) * wu;
        const Eigen::RowVectorXd mag_g = xm.row(m).cwiseAbs() * wg.cwiseAbs();
        const Eigen::RowVectorXd mag_u = xm.row(m).cwiseAbs() * wu.cwiseAbs();
        Eigen::RowVectorXd h(N), h_error(N);
        for (uint32_t n = 0; n < N; ++n) {
          h(n) = silu(g(n)) * u(n);
          h_error(n) = (kHalfUlp + kSiluFloat + gamma_n) * std::fabs(h(n)) +
                       gamma_k * (std::fabs(silu_slope(g(n)) * u(n)) * mag_g(n) +
                                  std::fabs(silu(g(n))) * mag_u(n)) +
                       kHalfSubnormal;
        }
        const Eigen::RowVectorXd d = h * wd;
        out.row(m) += p * d;
        // h's own error through down, down's float accumulation (in gamma_n above), and the
        // float scaling and sum over the token's experts.
        bound.row(m) +=
            std::fabs(p) * (h_error * wd.cwiseAbs() + routing.top_k * 2 * kFloatUlp * d.cwiseAbs());
      }
  }
  Reference r;
  r.value.assign(out.data(), out.data() + out.size());
  r.bound.resize(r.value.size());
  for (size_t i = 0; i < r.value.size(); ++i)
    r.bound[i] = bound.data()[i] + kHalfUlp * std::fabs(r.value[i]) + kHalfSubnormal;
  return r;
}

}  // namespace metalsim::kernels::trellis
