#include "kernels/quantized_matmul/quantized_matmul_baseline.h"

#include <type_traits>
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

// A K-quant super-block (256 values, 8 sub-blocks of 32) times 256 floats of a column of B;
// `sums` holds the column's 8 sub-block sums, for the min term.
template <class Block>
float super_block_dot(const Block& blk, const float* x, const float* sums) {
  float scaled = 0, mins = 0;
  for (int s = 0; s < 8; ++s) {
    const uint8_t* bytes = blk.qs + 32 * (s / 2);
    const int shift = (s & 1) ? 4 : 0;
    float dot = 0;
    for (int l = 0; l < 32; ++l) {
      int q = (bytes[l] >> shift) & 0xF;
      if constexpr (std::is_same_v<Block, BlockQ5_K>) q += ((blk.qh[l] >> s) & 1) << 4;
      dot += float(q) * x[32 * s + l];
    }
    int scale = 0, min = 0;
    k_scale_min(s, blk.scales, scale, min);
    scaled += float(scale) * dot;
    mins += float(min) * sums[s];
  }
  return float(blk.d) * scaled - float(blk.dmin) * mins;
}

template <class Block>
constexpr bool kIsKQuant = std::is_same_v<Block, BlockQ4_K> || std::is_same_v<Block, BlockQ5_K>;

template <class Block>
void matmul(const Block* a, int64_t blocks_per_row, const half_t* b, half_t* c, int64_t m,
            int64_t n, int64_t k) {
  // B's columns widened once, each padded with zeros to whole blocks.
  constexpr int64_t kBlock = kIsKQuant<Block> ? 256 : 32;
  const int64_t padded = blocks_per_row * kBlock;
  std::vector<float> bt(size_t(n * padded), 0.0f);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) bt[size_t(j * padded + i)] = float(b[i * n + j]);
  std::vector<float> sums;  // per 32 inputs, for the K-quants' min terms
  if constexpr (kIsKQuant<Block>) {
    sums.assign(size_t(n * padded / 32), 0.0f);
    for (size_t i = 0; i < sums.size(); ++i)
      for (int l = 0; l < 32; ++l) sums[i] += bt[32 * i + size_t(l)];
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < m; ++r) {
    const Block* row = a + r * blocks_per_row;
    for (int64_t j = 0; j < n; ++j) {
      const float* x = bt.data() + j * padded;
      float sum = 0;
      for (int64_t blk = 0; blk < blocks_per_row; ++blk) {
        if constexpr (kIsKQuant<Block>)
          sum += super_block_dot(row[blk], x + kBlock * blk,
                                 sums.data() + (j * padded + kBlock * blk) / 32);
        else sum += block_dot(row[blk], x + kBlock * blk);
      }
      c[r * n + j] = half_t(sum);
    }
  }
}

}  // namespace

template <class Block>
void matmul_baseline(const Block* a, int64_t blocks_per_row, const half_t* b, half_t* c, int64_t m,
                     int64_t n, int64_t k) {
  matmul(a, blocks_per_row, b, c, m, n, k);
}

// One instantiation per block format (the header declares the template).
#define METALSIM_MATMUL_BASELINE(Block)                                                          \
  template void matmul_baseline(const Block*, int64_t, const half_t*, half_t*, int64_t, int64_t, \
                                int64_t)
METALSIM_MATMUL_BASELINE(BlockQ4_0);
METALSIM_MATMUL_BASELINE(BlockQ8_0);
METALSIM_MATMUL_BASELINE(BlockQ4_K);
METALSIM_MATMUL_BASELINE(BlockQ5_K);
#undef METALSIM_MATMUL_BASELINE

}  // namespace metalsim::kernels::quantized_matmul
