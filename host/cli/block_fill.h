#pragma once
// GGML's quantized block formats as a case file's fill (`"fill": {"blocks": "q4_0"}` on a char or
// uchar buffer): random bytes in which every block's half scales are finite, so that a kernel
// reading a `device const char *` argument as blocks (as ggml's do) gets finite values, where
// random bytes would give it NaN and infinite scales. The layouts are
// kernels/formats/ggml_blocks.h.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/spec/inputs.h"

namespace metalsim::cli {

struct BlockLayout {
  std::string_view name;  // "q4_0"
  size_t bytes = 0;       // one block
  size_t scales_at = 0;   // byte offset of its half scales (d, and dmin where there is one)
  size_t scales = 0;      // how many
  size_t values = 0;      // the values one block holds
  // `k` values from the blocks at `blocks`, exactly (kernels/formats/ggml_dequantize.h).
  void (*dequantize)(const unsigned char* blocks, int64_t k, double* out) = nullptr;
};

// The layout named `name` (q4_0, q8_0, q4_K, q5_K), nullptr when there is none.
const BlockLayout* find_block_layout(std::string_view name);
// "q4_0, q8_0, q4_K, q5_K": for messages.
std::string block_layout_names();
// Fills `bytes` bytes (whole blocks) at `data`: random bytes, then each block's scales uniform in
// [-1/8, 1/8) as halves.
void fill_blocks(const BlockLayout& layout, unsigned char* data, size_t bytes,
                 spec::InputGenerator& gen);
// The values of the whole blocks in `bytes` bytes at `data`, as a reference sees them.
std::vector<double> dequantize_blocks(const BlockLayout& layout, const unsigned char* data,
                                      size_t bytes);

}  // namespace metalsim::cli
