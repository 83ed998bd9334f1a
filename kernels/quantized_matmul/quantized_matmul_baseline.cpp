#include "kernels/quantized_matmul/quantized_matmul_baseline.h"

#include <vector>

namespace metalsim::kernels::quantized_matmul {
namespace {

// One block's 32 values times 32 floats of a column of B.
float block_dot(const BlockQ4_0& blk, const float* x) {
  float sum = 0;
  for (int j = 0; j < 16; ++j)
    sum += float((blk.qs[j] & 0xF) - 8) * x[j] + float((blk.qs[j] >> 4) - 8) * x[j + 16];
  return sum * float(blk.d);
}

float block_dot(const BlockQ8_0& blk, const float* x) {
  float sum = 0;
  for (int j = 0; j < 32; ++j) sum += float(blk.qs[j]) * x[j];
  return sum * float(blk.d);
}

template <class Block>
void matmul(const Block* a, int64_t blocks_per_row, const half_t* b, half_t* c, int64_t m,
            int64_t n, int64_t k) {
  // B's columns widened once, each padded with zeros to whole blocks.
  const int64_t padded = blocks_per_row * 32;
  std::vector<float> bt(size_t(n * padded), 0.0f);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) bt[size_t(j * padded + i)] = float(b[i * n + j]);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < m; ++r) {
    const Block* row = a + r * blocks_per_row;
    for (int64_t j = 0; j < n; ++j) {
      const float* x = bt.data() + j * padded;
      float sum = 0;
      for (int64_t blk = 0; blk < blocks_per_row; ++blk) sum += block_dot(row[blk], x + 32 * blk);
      c[r * n + j] = half_t(sum);
    }
  }
}

}  // namespace

void matmul_baseline(const BlockQ4_0* a, int64_t blocks_per_row, const half_t* b, half_t* c,
                     int64_t m, int64_t n, int64_t k) {
  matmul(a, blocks_per_row, b, c, m, n, k);
}

void matmul_baseline(const BlockQ8_0* a, int64_t blocks_per_row, const half_t* b, half_t* c,
                     int64_t m, int64_t n, int64_t k) {
  matmul(a, blocks_per_row, b, c, m, n, k);
}

}  // namespace metalsim::kernels::quantized_matmul
