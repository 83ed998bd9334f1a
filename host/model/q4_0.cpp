#include "host/model/q4_0.h"

#include <algorithm>
#include <cmath>

namespace metalsim::model {
namespace {

BlockQ4_0 quantize_block(const float* x) {
  float extreme = 0;
  for (int j = 0; j < 32; ++j)
    if (std::fabs(x[j]) > std::fabs(extreme)) extreme = x[j];
  BlockQ4_0 b{};
  b.d = _Float16(extreme / -8.0f);
  const float d = float(b.d);  // quantize against the stored (rounded) scale
  const float inverse = d != 0 ? 1.0f / d : 0.0f;
  for (int j = 0; j < 16; ++j) {
    const auto nibble = [&](float v) {
      return uint8_t(std::clamp(int(std::lround(v * inverse)) + 8, 0, 15));
    };
    b.qs[j] = uint8_t(nibble(x[j]) | (nibble(x[j + 16]) << 4));
  }
  return b;
}

}  // namespace

std::vector<BlockQ4_0> quantize_q4_0(std::span<const float> values) {
  std::vector<BlockQ4_0> blocks(values.size() / 32);
  for (size_t i = 0; i < blocks.size(); ++i) blocks[i] = quantize_block(values.data() + 32 * i);
  return blocks;
}

}  // namespace metalsim::model
