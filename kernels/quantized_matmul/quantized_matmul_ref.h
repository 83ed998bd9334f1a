#pragma once
// GGML block layouts on the host, their exact dequantization, and the Eigen reference
// C [M, N] = dequant(A) [M, K] x B [K, N], in double.
#include <cstdint>
#include <vector>

namespace metalsim::kernels::quantized_matmul {

using half_t = _Float16;

struct BlockQ4_0 {  // value j = (nibble - 8) * d; j < 16 low nibble of qs[j], j >= 16 high of
                    // qs[j-16]
  half_t d;
  uint8_t qs[16];
};
struct BlockQ8_0 {  // value j = qs[j] * d
  half_t d;
  int8_t qs[32];
};
struct BlockQ4_K {  // 256 values: d * scale_s * q - dmin * min_s, s = sub-block of 32
  half_t d, dmin;
  uint8_t scales[12];
  uint8_t qs[128];
};
struct BlockQ5_K {  // as Q4_K with q += 16 * (bit s of qh[l])
  half_t d, dmin;
  uint8_t scales[12];
  uint8_t qh[32];
  uint8_t qs[128];
};
static_assert(sizeof(BlockQ4_0) == 18 && sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_K) == 144 && sizeof(BlockQ5_K) == 176);

// Sub-block j's (0..7) 6-bit scale and min in a K-quant super-block's packed `scales[12]`
// (GGML's get_scale_min_k4): shared by the reference and the fast baseline.
void k_scale_min(int j, const uint8_t* scales, int& scale, int& min);

// One row of `k` values from ceil(k / block) blocks (values past k are ignored).
void dequantize(const BlockQ4_0* blocks, int64_t k, double* out);
void dequantize(const BlockQ8_0* blocks, int64_t k, double* out);
void dequantize(const BlockQ4_K* blocks, int64_t k, double* out);
void dequantize(const BlockQ5_K* blocks, int64_t k, double* out);

// A: m rows of `blocks_per_row` blocks each, holding k values; B [k, n] half, row-major.
template <class Block>
std::vector<double> matmul_ref(const std::vector<Block>& a, int64_t blocks_per_row,
                               const std::vector<half_t>& b, int64_t m, int64_t n, int64_t k);

}  // namespace metalsim::kernels::quantized_matmul
