#include "kernels/embedding/embedding_baseline.h"

#include <omp.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace metalsim::kernels::embedding {
namespace {

// Row t of the output from a row of floats: scaled and narrowed.
void store_scaled(float* row, int64_t dim, float scale, half_t* out) {
  for (int64_t i = 0; i < dim; ++i) row[i] *= scale;
  spec::baseline::narrow(row, out, size_t(dim));
}

// The best (value, index) of logits [begin, end): NaN skipped, ties to the lower index.
struct Best {
  float value = -INFINITY;
  int64_t index = -1;
};
Best best_of(const float* logits, int64_t begin, int64_t end) {
  Best b;
  for (int64_t i = begin; i < end; ++i)
    if (logits[i] > b.value || (b.index < 0 && !std::isnan(logits[i]))) b = {logits[i], i};
  return b;
}
bool better(const Best& a, const Best& b) {
  if (b.index < 0) return a.index >= 0;
  if (a.index < 0) return false;
  return a.value > b.value || (a.value == b.value && a.index < b.index);
}

// The lookups' shared loop: tokens over the threads; an out-of-range id gives a zero row, any
// other row is decoded into floats by `decode(id, row)`, then scaled and narrowed.
template <class Decode>
void lookup(const uint32_t* ids, int64_t tokens, int64_t vocab, int64_t dim, float scale,
            half_t* out, Decode decode) {
#pragma omp parallel
  {
    std::vector<float> row(static_cast<size_t>(dim));
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tokens; ++t) {
      half_t* dst = out + t * dim;
      if (ids[t] >= uint64_t(vocab)) {
        std::memset(static_cast<void*>(dst), 0, size_t(dim) * sizeof(half_t));
        continue;
      }
      decode(int64_t(ids[t]), row.data());
      store_scaled(row.data(), dim, scale, dst);
    }
  }
}

}  // namespace

void lookup_f16_baseline(const uint32_t* ids, int64_t tokens, const half_t* table, int64_t vocab,
                         int64_t dim, float scale, half_t* out) {
  lookup(ids, tokens, vocab, dim, scale, out, [&](int64_t id, float* row) {
    spec::baseline::widen(table + id * dim, row, size_t(dim));
  });
}

void lookup_q8_0_baseline(const uint32_t* ids, int64_t tokens, const BlockQ8_0* table,
                          int64_t vocab, int64_t dim, float scale, half_t* out) {
  lookup(ids, tokens, vocab, dim, scale, out, [&](int64_t id, float* row) {
    const BlockQ8_0* blocks = table + id * (dim / 32);
    for (int64_t b = 0; b < dim / 32; ++b) {
      const float d = float(blocks[b].d);
      for (int j = 0; j < 32; ++j) row[32 * b + j] = float(blocks[b].qs[j]) * d;
    }
  });
}

void argmax_baseline(const float* logits, int64_t rows, int64_t cols, uint32_t* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = logits + r * cols;
    std::vector<Best> partial(static_cast<size_t>(omp_get_max_threads()));
#pragma omp parallel
    {
      const int64_t threads = omp_get_num_threads(), me = omp_get_thread_num();
      const int64_t chunk = (cols + threads - 1) / threads;
      partial[size_t(me)] =
          best_of(row, std::min(cols, me * chunk), std::min(cols, (me + 1) * chunk));
    }
    Best best;
    for (const Best& b : partial)
      if (better(b, best)) best = b;
    out[r] = uint32_t(best.index < 0 ? cols : best.index);
  }
}

}  // namespace metalsim::kernels::embedding
