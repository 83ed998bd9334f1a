#pragma once
// References for the embedding family (Eigen row gathers in double) and the host-side check
// that turns the kernels' per-token status into an error.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/formats/ggml_dequantize.h"

namespace metalsim::kernels::embedding {

using formats::BlockQ4_0;
using formats::BlockQ8_0;
using formats::half_t;

// out [T, D]: row t = table[tokens[t]] * scale, or zeros for an id >= vocab.
std::vector<double> lookup_f16_ref(const std::vector<uint32_t>& tokens,
                                   const std::vector<half_t>& table, int64_t vocab, int64_t dim,
                                   double scale);
// As above with a GGML Q4_0 or Q8_0 table (kernels/formats/ggml_blocks.h).
std::vector<double> lookup_q4_0_ref(const std::vector<uint32_t>& tokens,
                                    const std::vector<BlockQ4_0>& table, int64_t vocab, int64_t dim,
                                    double scale);
std::vector<double> lookup_q8_0_ref(const std::vector<uint32_t>& tokens,
                                    const std::vector<BlockQ8_0>& table, int64_t vocab, int64_t dim,
                                    double scale);

// Per row: index of the largest non-NaN value (lowest index on ties); cols if all are NaN.
std::vector<uint32_t> argmax_ref(const std::vector<float>& logits, int64_t rows, int64_t cols);

// "" when every status is 0; else names each out-of-range token (what the host reports).
std::string token_errors(const std::vector<uint32_t>& tokens, const uint32_t* status,
                         int64_t vocab);

}  // namespace metalsim::kernels::embedding
