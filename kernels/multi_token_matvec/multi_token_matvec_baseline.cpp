#include "kernels/multi_token_matvec/multi_token_matvec_baseline.h"

#include <vector>

namespace metalsim::kernels::multi_token_matvec {
namespace {

// One Q4_0 row into floats: value j of a block is (nibble - 8) * d, nibbles j and j + 16 in
// byte j.
void dequantize_row(const BlockQ4_0* blocks, int64_t in_dim, float* row) {
  for (int64_t b = 0; b < in_dim / 32; ++b) {
    const float d = float(blocks[b].d);
    float* out = row + 32 * b;
    for (int j = 0; j < 16; ++j) {
      out[j] = float((blocks[b].qs[j] & 0xF) - 8) * d;
      out[j + 16] = float((blocks[b].qs[j] >> 4) - 8) * d;
    }
  }
}

float dot(const float* a, const float* b, int64_t n) {
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace

void multi_token_matvec_baseline(const BlockQ4_0* weight, const float* input, float* output,
                                 int64_t out_dim, int64_t in_dim, int64_t batch, bool accumulate) {
#pragma omp parallel
  {
    std::vector<float> row(static_cast<size_t>(in_dim));
#pragma omp for schedule(static)
    for (int64_t o = 0; o < out_dim; ++o) {
      dequantize_row(weight + o * (in_dim / 32), in_dim, row.data());
      for (int64_t b = 0; b < batch; ++b) {
        const float y = dot(row.data(), input + b * in_dim, in_dim);
        float& out = output[b * out_dim + o];
        out = accumulate ? out + y : y;
      }
    }
  }
}

}  // namespace metalsim::kernels::multi_token_matvec
