#pragma once
// GGML's quantized block formats on the host: the one C++ definition that every family's
// reference, spec and baseline, the model runner and the tests use. Their MSL twins, which the
// .metal files include, are in ggml_blocks_msl.h; a static_assert on each side pins the sizes
// (GGML's: 18, 34, 144 and 176 bytes).
#include <cstdint>

namespace metalsim::kernels::formats {

using half_t = _Float16;

// 32 values: value j = (nibble - 8) * d, j < 16 in the low nibble of qs[j], j >= 16 in the high
// nibble of qs[j - 16].
struct BlockQ4_0 {
  half_t d;
  uint8_t qs[16];
};
// 32 values: value j = qs[j] * d.
struct BlockQ8_0 {
  half_t d;
  int8_t qs[32];
};
// 256 values in 8 sub-blocks of 32: d * scale_s * q - dmin * min_s, s the sub-block; the 6-bit
// scales and mins packed in scales[12] (k_scale_min); 64-value chunk c: qs[32c + l] low nibble is
// value 64c + l, high nibble 64c + 32 + l.
struct BlockQ4_K {
  half_t d, dmin;
  uint8_t scales[12];
  uint8_t qs[128];
};
// As Q4_K with q += 16 * (bit s of qh[l]) for value 32s + l.
struct BlockQ5_K {
  half_t d, dmin;
  uint8_t scales[12];
  uint8_t qh[32];
  uint8_t qs[128];
};
static_assert(sizeof(BlockQ4_0) == 18 && sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_K) == 144 && sizeof(BlockQ5_K) == 176);

// Sub-block j's (0..7) 6-bit scale and min in a K-quant super-block's packed `scales[12]`
// (GGML's get_scale_min_k4): j < 4 keep them in the low 6 bits of bytes j and j + 4; j >= 4 put
// their low 4 bits in byte j + 4 and their top 2 bits in the top bits of bytes j - 4 and j.
inline void k_scale_min(int j, const uint8_t* scales, int& scale, int& min) {
  if (j < 4) {
    scale = scales[j] & 63;
    min = scales[j + 4] & 63;
  } else {
    scale = (scales[j + 4] & 0xF) | ((scales[j - 4] >> 6) << 4);
    min = (scales[j + 4] >> 4) | ((scales[j] >> 6) << 4);
  }
}

}  // namespace metalsim::kernels::formats
