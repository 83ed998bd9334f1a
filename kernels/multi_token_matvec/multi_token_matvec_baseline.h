#pragma once
// The multi-token mat-vec's fast native baseline (kernels/spec/baseline.h): output [batch,
// out_dim] = input [batch, in_dim] x dequant(W)^T in float, rows of W over the OpenMP threads,
// each row dequantized once into floats and its dot product with every input of the batch a loop
// the compiler vectorizes (what batching buys a native kernel too).
#include <cstdint>

#include "kernels/multi_token_matvec/multi_token_matvec_ref.h"
#include "kernels/spec/baseline.h"

namespace metalsim::kernels::multi_token_matvec {

// W: out_dim rows of in_dim / 32 blocks. accumulate: output += the product, else output =.
void multi_token_matvec_baseline(const BlockQ4_0* weight, const float* input, float* output,
                                 int64_t out_dim, int64_t in_dim, int64_t batch, bool accumulate);

}  // namespace metalsim::kernels::multi_token_matvec
