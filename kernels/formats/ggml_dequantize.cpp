#include "kernels/formats/ggml_dequantize.h"

namespace metalsim::kernels::formats {
namespace {

template <class Block>
void dequantize_k(const Block* blocks, int64_t k, double* out, bool five_bit) {
  for (int64_t e = 0; e < k; ++e) {
    const Block& b = blocks[e / 256];
    const int i = int(e % 256), s = i / 32, l = i % 32;
    const uint8_t byte = b.qs[32 * (s / 2) + l];
    int q = (s & 1) ? byte >> 4 : byte & 0xF;
    if constexpr (sizeof(Block) == sizeof(BlockQ5_K))
      if (five_bit) q += 16 * ((b.qh[l] >> s) & 1);
    int sc = 0, mn = 0;
    k_scale_min(s, b.scales, sc, mn);
    out[e] = double(b.d) * sc * q - double(b.dmin) * mn;
  }
}

}  // namespace

void dequantize(const BlockQ4_0* blocks, int64_t k, double* out) {
  for (int64_t e = 0; e < k; ++e) {
    const BlockQ4_0& b = blocks[e / 32];
    const int j = int(e % 32);
    const int q = j < 16 ? b.qs[j] & 0xF : b.qs[j - 16] >> 4;
    out[e] = double(q - 8) * double(b.d);
  }
}

void dequantize(const BlockQ8_0* blocks, int64_t k, double* out) {
  for (int64_t e = 0; e < k; ++e)
    out[e] = double(blocks[e / 32].qs[e % 32]) * double(blocks[e / 32].d);
}

void dequantize(const BlockQ4_K* blocks, int64_t k, double* out) {
  dequantize_k(blocks, k, out, false);
}
void dequantize(const BlockQ5_K* blocks, int64_t k, double* out) {
  dequantize_k(blocks, k, out, true);
}

}  // namespace metalsim::kernels::formats
