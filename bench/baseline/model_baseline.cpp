#include "bench/baseline/model_baseline.h"

// Every parallel loop is this file's own, on the model's thread count: Eigen's products run
// inside them, single-threaded.
#define EIGEN_DONT_PARALLELIZE
#include <omp.h>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace metalsim::baseline {
namespace {

using model::BlockQ4_0;
using model::ModelConfig;
using MatrixR = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
// Maps over std::vector storage only (the header says why); rows `stride` floats apart.
using ConstRows = Eigen::Map<const MatrixR, 0, Stride>;
using Rows = Eigen::Map<MatrixR, 0, Stride>;

constexpr uint32_t kBlock = 32;  // values per Q4_0 block
// Weight rows a prefill task dequantizes and multiplies. 64 was 6% faster on one thread (the
// GEMM packs the tokens' rows once per panel), but at SmolLM's shapes it leaves 16 threads 15
// tasks for Q, K and V together; 32 gives 30 (16 was 10% slower).
constexpr uint32_t kPanelRows = 32;

#ifdef __AVX2__
// Eight signed bytes (the low half of `bytes`) as eight floats.
inline __m256 floats_of(__m128i bytes) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes)); }

// A block's 32 values before the scale, nibble - 8, as four vectors of eight: values 0-15 are
// the low nibbles of qs[0..15], values 16-31 the high nibbles.
struct Nibbles {
  __m256 v[4];
};
inline Nibbles nibbles_of(const BlockQ4_0& b) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
  const __m128i mask = _mm_set1_epi8(0x0F), eight = _mm_set1_epi8(8);
  const __m128i low = _mm_sub_epi8(_mm_and_si128(bytes, mask), eight);
  const __m128i high = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(bytes, 4), mask), eight);
  return {{floats_of(low), floats_of(_mm_unpackhi_epi64(low, low)), floats_of(high),
           floats_of(_mm_unpackhi_epi64(high, high))}};
}

inline float sum_of(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
#endif

// A row of `blocks` Q4_0 blocks into floats.
void dequantize_row(const BlockQ4_0* row, uint32_t blocks, float* out) {
  for (uint32_t b = 0; b < blocks; ++b, out += kBlock) {
#ifdef __AVX2__
    const Nibbles q = nibbles_of(row[b]);
    const __m256 d = _mm256_set1_ps(float(row[b].d));
    for (int i = 0; i < 4; ++i) _mm256_storeu_ps(out + 8 * i, _mm256_mul_ps(q.v[i], d));
#else
    const float d = float(row[b].d);
    for (uint32_t j = 0; j < kBlock / 2; ++j) {
      out[j] = float((row[b].qs[j] & 0xF) - 8) * d;
      out[j + kBlock / 2] = float((row[b].qs[j] >> 4) - 8) * d;
    }
#endif
  }
}

// The dot product of a Q4_0 row with x, each block dequantized in registers: the block's 32
// products summed, then scaled by its d.
float dot_row(const BlockQ4_0* row, uint32_t blocks, const float* x) {
#ifdef __AVX2__
  __m256 acc = _mm256_setzero_ps();
  for (uint32_t b = 0; b < blocks; ++b, x += kBlock) {
    const Nibbles q = nibbles_of(row[b]);
    __m256 s = _mm256_mul_ps(q.v[0], _mm256_loadu_ps(x));
    s = _mm256_fmadd_ps(q.v[1], _mm256_loadu_ps(x + 8), s);
    s = _mm256_fmadd_ps(q.v[2], _mm256_loadu_ps(x + 16), s);
    s = _mm256_fmadd_ps(q.v[3], _mm256_loadu_ps(x + 24), s);
    acc = _mm256_fmadd_ps(s, _mm256_set1_ps(float(row[b].d)), acc);
  }
  return sum_of(acc);
#else
  float sum = 0, values[kBlock];
  for (uint32_t b = 0; b < blocks; ++b, x += kBlock) {
    dequantize_row(row + b, 1, values);
    for (uint32_t j = 0; j < kBlock; ++j) sum += values[j] * x[j];
  }
  return sum;
#endif
}

// One weight matrix [rows, in_dim] of a projection and where its outputs go: y[t * y_stride + o].
struct Projection {
  const std::vector<BlockQ4_0>* weights;
  uint32_t rows;
  float* y;
  uint32_t y_stride;
};

// y (+)= x W^T for one token: every projection's rows split over the threads (static: even
// blocks of rows), the projections one after another without a barrier between them.
void project_token(std::span<const Projection> projections, uint32_t in_dim, const float* x,
                   bool accumulate, int threads) {
  const uint32_t blocks = in_dim / kBlock;
#pragma omp parallel num_threads(threads)
  for (const Projection& p : projections) {
    const BlockQ4_0* w = p.weights->data();
#pragma omp for schedule(static) nowait
    for (int64_t o = 0; o < int64_t(p.rows); ++o) {
      const float y = dot_row(w + size_t(o) * blocks, blocks, x);
      p.y[o] = accumulate ? p.y[o] + y : y;
    }
  }
}

// y (+)= x W^T for `tokens` rows of x: panels of kPanelRows weight rows over the threads, each
// dequantized into the thread's scratch and multiplied by Eigen's GEMM while in cache.
void project_tokens(std::span<const Projection> projections, uint32_t in_dim, const float* x,
                    uint32_t tokens, bool accumulate, std::vector<std::vector<float>>& scratch,
                    int threads) {
  const uint32_t blocks = in_dim / kBlock;
  const ConstRows input(x, tokens, in_dim, Stride(in_dim));
#pragma omp parallel num_threads(threads)
  {
    std::vector<float>& panel = scratch[size_t(omp_get_thread_num())];
    if (panel.size() < size_t(kPanelRows) * in_dim) panel.resize(size_t(kPanelRows) * in_dim);
    for (const Projection& p : projections) {
      const BlockQ4_0* w = p.weights->data();
      const int64_t panels = (p.rows + kPanelRows - 1) / kPanelRows;
#pragma omp for schedule(dynamic, 1) nowait
      for (int64_t i = 0; i < panels; ++i) {
        const uint32_t first = uint32_t(i) * kPanelRows;
        const uint32_t rows = std::min(kPanelRows, p.rows - first);
        for (uint32_t r = 0; r < rows; ++r)
          dequantize_row(w + size_t(first + r) * blocks, blocks, panel.data() + size_t(r) * in_dim);
        const ConstRows decoded(panel.data(), rows, in_dim, Stride(in_dim));
        Rows out(p.y + first, tokens, rows, Stride(p.y_stride));
        if (accumulate) out.noalias() += input * decoded.transpose();
        else out.noalias() = input * decoded.transpose();
      }
    }
  }
}

// x W^T into each projection's y (added to it with `accumulate`), for one token or several.
void project(std::span<const Projection> projections, uint32_t in_dim, const float* x,
             uint32_t tokens, bool accumulate, std::vector<std::vector<float>>& scratch,
             int threads) {
  if (tokens == 1) project_token(projections, in_dim, x, accumulate, threads);
  else project_tokens(projections, in_dim, x, tokens, accumulate, scratch, threads);
}

// out = x / rms(x) * weight, row by row.
void rms_norm(const float* x, const std::vector<float>& weight, float eps, uint32_t tokens,
              uint32_t hidden, float* out, int threads) {
  const Eigen::Map<const Eigen::ArrayXf> w(weight.data(), hidden);
#pragma omp parallel for num_threads(threads) schedule(static) if (tokens > 1)
  for (int64_t t = 0; t < int64_t(tokens); ++t) {
    const Eigen::Map<const Eigen::ArrayXf> row(x + size_t(t) * hidden, hidden);
    const float inverse = 1.0f / std::sqrt(row.square().sum() / float(hidden) + eps);
    Eigen::Map<Eigen::ArrayXf>(out + size_t(t) * hidden, hidden) = row * inverse * w;
  }
}

// Row i of scores (the query at position first + i) softmaxed over keys 0 .. first + i, the
// later keys zeroed (causal).
void causal_softmax(float* scores, uint32_t tokens, uint32_t keys, uint32_t first) {
  for (uint32_t i = 0; i < tokens; ++i) {
    const uint32_t visible = first + i + 1;
    Eigen::Map<Eigen::ArrayXf> row(scores + size_t(i) * keys, visible);
    row = (row - row.maxCoeff()).exp();
    row /= row.sum();
    std::fill(scores + size_t(i) * keys + visible, scores + size_t(i + 1) * keys, 0.0f);
  }
}

}  // namespace

NativeModel::NativeModel(const model::ModelConfig& config, const model::ModelWeights& weights,
                         int threads)
    : config_(config), weights_(weights), threads_(threads > 0 ? threads : omp_get_max_threads()) {
  if (!config.problem().empty()) throw std::invalid_argument(config.problem());
  if (config.kv_cache != model::KvCacheKind::chunked)
    throw std::invalid_argument("the native baseline models the chunked KV cache only");
  const uint32_t half = config.head_dim / 2;
  inverse_frequency_.resize(half);
  for (uint32_t d = 0; d < half; ++d)
    inverse_frequency_[d] =
        1.0f / std::pow(config.rope_theta, float(2 * d) / float(config.head_dim));
  const size_t cache = size_t(config.layers) * config.max_context * config.kv_dim();
  keys_.resize(cache);
  values_.resize(cache);
  scratch_.resize(size_t(threads_));  // each thread grows its own on first use
  logits_.resize(config.vocab);
}

void NativeModel::grow(uint32_t tokens) {
  const ModelConfig& c = config_;
  const auto size = [&](std::vector<float>& v, uint32_t width) {
    if (v.size() < size_t(tokens) * width) v.resize(size_t(tokens) * width);
  };
  size(x_, c.hidden);
  size(normed_, std::max(c.hidden, c.intermediate));
  size(q_, c.q_dim());
  size(k_, c.kv_dim());
  size(v_, c.kv_dim());
  size(attended_, c.q_dim());
  size(gate_, c.intermediate);
  size(up_, c.intermediate);
}

uint32_t NativeModel::forward_prompt(std::span<const uint32_t> tokens) {
  const ModelConfig& c = config_;
  if (tokens.empty()) throw std::invalid_argument("no tokens");
  if (size_t(position_) + tokens.size() > c.max_context)
    throw std::out_of_range("past the KV cache's max_context");
  for (uint32_t t : tokens)
    if (t >= c.vocab) throw std::out_of_range("a token outside the vocabulary");
  const auto n = uint32_t(tokens.size());
  grow(n);
  const uint32_t blocks = c.hidden / kBlock;
  for (uint32_t t = 0; t < n; ++t)
    dequantize_row(weights_.embedding.data() + size_t(tokens[t]) * blocks, blocks,
                   x_.data() + size_t(t) * c.hidden);
  prepare_rotation(n);
  for (uint32_t l = 0; l < c.layers; ++l) {
    attention_block(l, n);
    ffn_block(l, n);
  }
  // Only the last token's logits, as the runner.
  const float* last = x_.data() + size_t(n - 1) * c.hidden;
  rms_norm(last, weights_.final_norm, c.rms_eps, 1, c.hidden, normed_.data(), threads_);
  const Projection head[] = {{&weights_.embedding, c.vocab, logits_.data(), c.vocab}};
  project(head, c.hidden, normed_.data(), 1, false, scratch_, threads_);
  position_ += n;
  // The first of the largest (ties to the lowest id, as the runner's argmax).
  return uint32_t(std::max_element(logits_.begin(), logits_.end()) - logits_.begin());
}

void NativeModel::prepare_rotation(uint32_t tokens) {
  const uint32_t half = config_.head_dim / 2;
  cos_.resize(size_t(tokens) * half);
  sin_.resize(size_t(tokens) * half);
  for (uint32_t t = 0; t < tokens; ++t)
    for (uint32_t d = 0; d < half; ++d) {
      const float angle = float(position_ + t) * inverse_frequency_[d];
      cos_[size_t(t) * half + d] = std::cos(angle);
      sin_[size_t(t) * half + d] = std::sin(angle);
    }
}

// Each head of each token's row rotated in place: (x[d], x[d + half]) by its position's angle.
void NativeModel::rotate(float* rows, uint32_t tokens, uint32_t heads) const {
  const uint32_t dim = config_.head_dim, half = dim / 2;
#pragma omp parallel for num_threads(threads_) schedule(static) if (tokens > 1)
  for (int64_t t = 0; t < int64_t(tokens); ++t) {
    const float* cos = cos_.data() + size_t(t) * half;
    const float* sin = sin_.data() + size_t(t) * half;
    for (uint32_t h = 0; h < heads; ++h) {
      float* x = rows + (size_t(t) * heads + h) * dim;
#pragma omp simd
      for (uint32_t d = 0; d < half; ++d) {
        const float re = x[d], im = x[d + half];
        x[d] = re * cos[d] - im * sin[d];
        x[d + half] = re * sin[d] + im * cos[d];
      }
    }
  }
}

void NativeModel::attention_block(uint32_t layer, uint32_t tokens) {
  const ModelConfig& c = config_;
  const model::LayerWeights& w = weights_.layers[layer];
  rms_norm(x_.data(), w.attn_norm, c.rms_eps, tokens, c.hidden, normed_.data(), threads_);
  const Projection qkv[] = {{&w.q, c.q_dim(), q_.data(), c.q_dim()},
                            {&w.k, c.kv_dim(), k_.data(), c.kv_dim()},
                            {&w.v, c.kv_dim(), v_.data(), c.kv_dim()}};
  project(qkv, c.hidden, normed_.data(), tokens, false, scratch_, threads_);
  rotate(q_.data(), tokens, c.heads);
  rotate(k_.data(), tokens, c.kv_heads);
  const size_t slot = (size_t(layer) * c.max_context + position_) * c.kv_dim();
  std::copy_n(k_.data(), size_t(tokens) * c.kv_dim(), keys_.data() + slot);
  std::copy_n(v_.data(), size_t(tokens) * c.kv_dim(), values_.data() + slot);
  attend(layer, tokens);
  const Projection o[] = {{&w.o, c.hidden, x_.data(), c.hidden}};
  project(o, c.q_dim(), attended_.data(), tokens, true, scratch_, threads_);
}

// Per head h (over the threads), with g its kv head: S = Q_h K_g^T / sqrt(d) over every cached
// key, causal softmax, O_h = S V_g. Q_h, K_g, V_g and O_h are column slices of row-major
// matrices, mapped with their row stride.
void NativeModel::attend(uint32_t layer, uint32_t tokens) {
  const ModelConfig& c = config_;
  const uint32_t dim = c.head_dim, group = c.heads / c.kv_heads, keys = position_ + tokens;
  const float* layer_keys = keys_.data() + size_t(layer) * c.max_context * c.kv_dim();
  const float* layer_values = values_.data() + size_t(layer) * c.max_context * c.kv_dim();
  const float scale = 1.0f / std::sqrt(float(dim));
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
  for (int64_t h = 0; h < int64_t(c.heads); ++h) {
    const uint32_t g = uint32_t(h) / group;
    std::vector<float>& scores = scratch_[size_t(omp_get_thread_num())];
    if (scores.size() < size_t(tokens) * keys) scores.resize(size_t(tokens) * keys);
    const ConstRows q(q_.data() + size_t(h) * dim, tokens, dim, Stride(c.q_dim()));
    const ConstRows k(layer_keys + size_t(g) * dim, keys, dim, Stride(c.kv_dim()));
    const ConstRows v(layer_values + size_t(g) * dim, keys, dim, Stride(c.kv_dim()));
    Rows s(scores.data(), tokens, keys, Stride(keys));
    s.noalias() = (q * k.transpose()) * scale;
    causal_softmax(scores.data(), tokens, keys, position_);
    Rows(attended_.data() + size_t(h) * dim, tokens, dim, Stride(c.q_dim())).noalias() = s * v;
  }
}

void NativeModel::ffn_block(uint32_t layer, uint32_t tokens) {
  const ModelConfig& c = config_;
  const model::LayerWeights& w = weights_.layers[layer];
  rms_norm(x_.data(), w.ffn_norm, c.rms_eps, tokens, c.hidden, normed_.data(), threads_);
  const Projection gate_up[] = {{&w.gate, c.intermediate, gate_.data(), c.intermediate},
                                {&w.up, c.intermediate, up_.data(), c.intermediate}};
  project(gate_up, c.hidden, normed_.data(), tokens, false, scratch_, threads_);
  // silu(gate) * up, into normed_ (free until the next norm).
#pragma omp parallel for num_threads(threads_) schedule(static) if (tokens > 1)
  for (int64_t t = 0; t < int64_t(tokens); ++t) {
    const size_t at = size_t(t) * c.intermediate;
    const Eigen::Map<const Eigen::ArrayXf> g(gate_.data() + at, c.intermediate),
        u(up_.data() + at, c.intermediate);
    Eigen::Map<Eigen::ArrayXf>(normed_.data() + at, c.intermediate) = g / (1.0f + (-g).exp()) * u;
  }
  const Projection down[] = {{&w.down, c.hidden, x_.data(), c.hidden}};
  project(down, c.intermediate, normed_.data(), tokens, true, scratch_, threads_);
}

}  // namespace metalsim::baseline
