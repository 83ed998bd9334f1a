#include "kernels/elementwise/elementwise_baseline.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

namespace metalsim::kernels::elementwise {
namespace {

using spec::baseline::narrow;
using spec::baseline::widen;
using Chunk = Eigen::Map<Eigen::ArrayXf>;
constexpr size_t kChunk = 4096;  // elements per task: in L1 as float

// f(chunk of inputs..., out chunk) over the threads, each chunk widened, computed and narrowed.
template <class F>
void chunks(size_t n, F&& f) {
  const int64_t count = int64_t((n + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < count; ++c) {
    const size_t begin = size_t(c) * kChunk, len = std::min(kChunk, n - begin);
    f(begin, len);
  }
}

Eigen::ArrayXf silu(const Chunk& x) { return x / (1.0f + (-x).exp()); }

// out = op(a, b) element-wise: op(x, y) writes its result over x, the chunk of `a` in float.
template <class Op>
void binary(const half_t* a, const half_t* b, half_t* out, size_t n, Op op) {
  chunks(n, [&](size_t begin, size_t len) {
    alignas(64) float va[kChunk], vb[kChunk];
    widen(a + begin, va, len);
    widen(b + begin, vb, len);
    Chunk x(va, Eigen::Index(len));
    const Chunk y(vb, Eigen::Index(len));
    op(x, y);
    narrow(va, out + begin, len);
  });
}

}  // namespace

void silu_baseline(const half_t* x, half_t* out, size_t n) {
  chunks(n, [&](size_t begin, size_t len) {
    alignas(64) float buffer[kChunk];
    widen(x + begin, buffer, len);
    Chunk v(buffer, Eigen::Index(len));
    v = silu(v);
    narrow(buffer, out + begin, len);
  });
}

void gelu_baseline(const half_t* x, half_t* out, size_t n) {
  const float k = float(std::sqrt(2.0 / M_PI));
  chunks(n, [&](size_t begin, size_t len) {
    alignas(64) float buffer[kChunk];
    widen(x + begin, buffer, len);
    Chunk v(buffer, Eigen::Index(len));
    v = 0.5f * v * (1.0f + (k * (v + 0.044715f * v.cube())).tanh());
    narrow(buffer, out + begin, len);
  });
}

void multiply_baseline(const half_t* a, const half_t* b, half_t* out, size_t n) {
  binary(a, b, out, n, [](Chunk& x, const Chunk& y) { x *= y; });
}

void swiglu_baseline(const half_t* gate, const half_t* up, half_t* out, size_t n) {
  binary(gate, up, out, n, [](Chunk& g, const Chunk& u) { g = silu(g) * u; });
}

void rms_norm_baseline(const half_t* x, const half_t* weight, half_t* out, int64_t rows,
                       int64_t hidden, float eps, float weight_offset) {
  std::vector<float> w(static_cast<size_t>(hidden), 0.0f);
  widen(weight, w.data(), w.size());
  for (float& v : w) v += weight_offset;
  const Chunk wa(w.data(), hidden);
#pragma omp parallel
  {
    std::vector<float> buffer(static_cast<size_t>(hidden));
    Chunk row(buffer.data(), hidden);
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      widen(x + r * hidden, buffer.data(), size_t(hidden));
      const float inv_rms = 1.0f / std::sqrt(row.square().sum() / float(hidden) + eps);
      row = row * inv_rms * wa;
      narrow(buffer.data(), out + r * hidden, size_t(hidden));
    }
  }
}

void rope_baseline(const half_t* x, half_t* out, int64_t seq, int64_t heads, int64_t head_dim,
                   int64_t position_offset, float theta_base) {
  const int64_t half_dim = head_dim / 2;
  std::vector<float> freq(static_cast<size_t>(half_dim));
  for (int64_t d = 0; d < half_dim; ++d)
    freq[size_t(d)] = std::pow(theta_base, -float(2 * d) / float(head_dim));
#pragma omp parallel
  {
    std::vector<float> c(static_cast<size_t>(half_dim)), s(static_cast<size_t>(half_dim)),
        v(static_cast<size_t>(head_dim));
#pragma omp for schedule(static)
    for (int64_t p = 0; p < seq; ++p) {
      for (int64_t d = 0; d < half_dim; ++d) {
        const float angle = float(p + position_offset) * freq[size_t(d)];
        c[size_t(d)] = std::cos(angle);
        s[size_t(d)] = std::sin(angle);
      }
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t base = (p * heads + h) * head_dim;
        widen(x + base, v.data(), size_t(head_dim));
        for (int64_t d = 0; d < half_dim; ++d) {
          const float re = v[size_t(d)], im = v[size_t(d + half_dim)];
          v[size_t(d)] = re * c[size_t(d)] - im * s[size_t(d)];
          v[size_t(d + half_dim)] = re * s[size_t(d)] + im * c[size_t(d)];
        }
        narrow(v.data(), out + base, size_t(head_dim));
      }
    }
  }
}

}  // namespace metalsim::kernels::elementwise
