#pragma once
// GGML blocks (ggml_blocks.h) dequantized exactly, in double: what every reference that reads a
// quantized tensor compares against (the mat-vec families, the embedding table, the model).
#include <cstdint>

#include "kernels/formats/ggml_blocks.h"

namespace metalsim::kernels::formats {

// One row of `k` values from ceil(k / block) blocks (values past k are ignored).
void dequantize(const BlockQ4_0* blocks, int64_t k, double* out);
void dequantize(const BlockQ8_0* blocks, int64_t k, double* out);
void dequantize(const BlockQ4_K* blocks, int64_t k, double* out);
void dequantize(const BlockQ5_K* blocks, int64_t k, double* out);

}  // namespace metalsim::kernels::formats
