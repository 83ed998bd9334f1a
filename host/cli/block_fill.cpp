#include "host/cli/block_fill.h"

#include <array>
#include <cstddef>
#include <cstring>

#include "kernels/formats/ggml_blocks.h"
#include "kernels/formats/ggml_dequantize.h"

namespace metalsim::cli {
namespace {

namespace formats = kernels::formats;

template <class Block>
void dequantize_as(const unsigned char* blocks, int64_t k, double* out) {
  formats::dequantize(reinterpret_cast<const Block*>(blocks), k, out);
}

constexpr std::array<BlockLayout, 4> kLayouts{{
    {"q4_0", sizeof(formats::BlockQ4_0), offsetof(formats::BlockQ4_0, d), 1, 32,
     &dequantize_as<formats::BlockQ4_0>},
    {"q8_0", sizeof(formats::BlockQ8_0), offsetof(formats::BlockQ8_0, d), 1, 32,
     &dequantize_as<formats::BlockQ8_0>},
    {"q4_K", sizeof(formats::BlockQ4_K), offsetof(formats::BlockQ4_K, d), 2, 256,
     &dequantize_as<formats::BlockQ4_K>},
    {"q5_K", sizeof(formats::BlockQ5_K), offsetof(formats::BlockQ5_K, d), 2, 256,
     &dequantize_as<formats::BlockQ5_K>},
}};
static_assert(offsetof(formats::BlockQ4_K, dmin) == 2 && offsetof(formats::BlockQ5_K, dmin) == 2,
              "d and dmin are adjacent halves");

}  // namespace

const BlockLayout* find_block_layout(std::string_view name) {
  for (const BlockLayout& l : kLayouts)
    if (l.name == name) return &l;
  return nullptr;
}

std::string block_layout_names() {
  std::string out;
  for (const BlockLayout& l : kLayouts) out += (out.empty() ? "" : ", ") + std::string(l.name);
  return out;
}

void fill_blocks(const BlockLayout& layout, unsigned char* data, size_t bytes,
                 spec::InputGenerator& gen) {
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(gen.next_u64());
  for (size_t block = 0; block + layout.bytes <= bytes; block += layout.bytes)
    for (size_t s = 0; s < layout.scales; ++s) {
      const auto scale = formats::half_t(gen.uniform(-0.125, 0.125));
      std::memcpy(data + block + layout.scales_at + s * sizeof scale, &scale, sizeof scale);
    }
}

std::vector<double> dequantize_blocks(const BlockLayout& layout, const unsigned char* data,
                                      size_t bytes) {
  std::vector<double> values(bytes / layout.bytes * layout.values);
  layout.dequantize(data, int64_t(values.size()), values.data());
  return values;
}

}  // namespace metalsim::cli
