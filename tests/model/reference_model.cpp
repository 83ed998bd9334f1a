#include "tests/model/reference_model.h"

#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "kernels/formats/ggml_dequantize.h"

namespace metalsim::model::reference {
namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// rows x cols, from Q4_0 blocks (cols / 32 per row), exactly.
Matrix dequantize(const std::vector<BlockQ4_0>& blocks, int64_t rows, int64_t cols,
                  int64_t first_row = 0) {
  Matrix m(rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    kernels::formats::dequantize(blocks.data() + (first_row + r) * (cols / 32), cols,
                                 m.row(r).data());
  return m;
}

Matrix rms_norm(const Matrix& x, const std::vector<float>& weight, double eps) {
  Matrix out(x.rows(), x.cols());
  for (int64_t t = 0; t < x.rows(); ++t) {
    const double inv = 1.0 / std::sqrt(x.row(t).squaredNorm() / double(x.cols()) + eps);
    for (int64_t i = 0; i < x.cols(); ++i) out(t, i) = x(t, i) * inv * double(weight[size_t(i)]);
  }
  return out;
}

// x [T, heads * head_dim], in place: the pair (d, d + head_dim / 2) of each head of row t
// rotated by t * theta^(-2d / head_dim).
void rope(Matrix& x, int64_t heads, int64_t head_dim, double theta) {
  const int64_t half = head_dim / 2;
  for (int64_t t = 0; t < x.rows(); ++t)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t d = 0; d < half; ++d) {
        const double angle = double(t) * std::pow(theta, -2.0 * double(d) / double(head_dim));
        double& re = x(t, h * head_dim + d);
        double& im = x(t, h * head_dim + d + half);
        const double r = re, i = im;
        re = r * std::cos(angle) - i * std::sin(angle);
        im = r * std::sin(angle) + i * std::cos(angle);
      }
}

// May query i see key j? Causal, and within the window when the cache rotates.
bool visible(const ModelConfig& c, int64_t i, int64_t j) {
  if (j > i) return false;
  return c.kv_cache != KvCacheKind::rotating || i - j < int64_t(c.window);
}

// softmax(Q_h K_g^T / sqrt(d) + mask) V_g for every head h (g = its kv head).
Matrix attention(const ModelConfig& c, const Matrix& q, const Matrix& k, const Matrix& v) {
  const int64_t T = q.rows(), D = c.head_dim, group = c.heads / c.kv_heads;
  Matrix out(T, c.q_dim());
  for (int64_t h = 0; h < c.heads; ++h) {
    const int64_t g = h / group;
    Matrix scores =
        q.middleCols(h * D, D) * k.middleCols(g * D, D).transpose() / std::sqrt(double(D));
    for (int64_t i = 0; i < T; ++i) {
      double top = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < T; ++j)
        if (visible(c, i, j)) top = std::max(top, scores(i, j));
      double sum = 0;
      for (int64_t j = 0; j < T; ++j)
        sum += scores(i, j) = visible(c, i, j) ? std::exp(scores(i, j) - top) : 0.0;
      scores.row(i) /= sum;
    }
    out.middleCols(h * D, D) = scores * v.middleCols(g * D, D);
  }
  return out;
}

Matrix silu_times(const Matrix& gate, const Matrix& up) {
  return gate.array() / (1.0 + (-gate.array()).exp()) * up.array();
}

}  // namespace

ReferenceModel::ReferenceModel(const ModelConfig& config, const ModelWeights& weights)
    : config_(config), weights_(weights) {}

ReferenceRun ReferenceModel::run(std::span<const uint32_t> tokens, size_t logits_from) const {
  const ModelConfig& c = config_;
  const auto T = int64_t(tokens.size());
  Matrix x(T, c.hidden);
  for (int64_t t = 0; t < T; ++t)
    x.row(t) = dequantize(weights_.embedding, 1, c.hidden, tokens[size_t(t)]);
  ReferenceRun run;
  for (const LayerWeights& w : weights_.layers) {
    Matrix xn = rms_norm(x, w.attn_norm, c.rms_eps);
    Matrix q = xn * dequantize(w.q, c.q_dim(), c.hidden).transpose();
    Matrix k = xn * dequantize(w.k, c.kv_dim(), c.hidden).transpose();
    Matrix v = xn * dequantize(w.v, c.kv_dim(), c.hidden).transpose();
    rope(q, c.heads, c.head_dim, c.rope_theta);
    rope(k, c.kv_heads, c.head_dim, c.rope_theta);
    run.keys.emplace_back(k.data(), k.data() + k.size());
    run.values.emplace_back(v.data(), v.data() + v.size());
    x += attention(c, q, k, v) * dequantize(w.o, c.hidden, c.q_dim()).transpose();
    xn = rms_norm(x, w.ffn_norm, c.rms_eps);
    const Matrix gate = xn * dequantize(w.gate, c.intermediate, c.hidden).transpose();
    const Matrix up = xn * dequantize(w.up, c.intermediate, c.hidden).transpose();
    x += silu_times(gate, up) * dequantize(w.down, c.hidden, c.intermediate).transpose();
  }
  const Matrix xf = rms_norm(x, weights_.final_norm, c.rms_eps);
  run.logits.resize(size_t(T));
  const int64_t chunk = 4096;  // lm_head rows dequantized at a time
  for (int64_t t = int64_t(logits_from); t < T; ++t) run.logits[size_t(t)].resize(c.vocab);
  for (int64_t r0 = 0; r0 < int64_t(c.vocab) && int64_t(logits_from) < T; r0 += chunk) {
    const int64_t rows = std::min<int64_t>(chunk, c.vocab - r0);
    const Matrix part = xf.bottomRows(T - int64_t(logits_from)) *
                        dequantize(weights_.embedding, rows, c.hidden, r0).transpose();
    for (int64_t t = 0; t < part.rows(); ++t)
      for (int64_t r = 0; r < rows; ++r)
        run.logits[size_t(logits_from + t)][size_t(r0 + r)] = part(t, r);
  }
  return run;
}

std::vector<uint32_t> ReferenceModel::generate(std::span<const uint32_t> prompt,
                                               size_t count) const {
  std::vector<uint32_t> sequence(prompt.begin(), prompt.end()), out;
  for (size_t i = 0; i < count; ++i) {
    const ReferenceRun r = run(sequence, sequence.size() - 1);
    out.push_back(argmax(r.logits.back()));
    sequence.push_back(out.back());
  }
  return out;
}

uint32_t argmax(std::span<const double> values) {
  uint32_t best = 0;
  for (uint32_t i = 1; i < values.size(); ++i)
    if (values[i] > values[best]) best = i;
  return best;
}

}  // namespace metalsim::model::reference
