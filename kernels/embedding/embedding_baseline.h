#pragma once
// The embedding family's fast native baselines (kernels/spec/baseline.h): row gathers widened,
// scaled and narrowed eight halves at a time over the OpenMP threads, and an argmax whose columns
// are split over the threads (the bench case is one row of a vocabulary).
#include <cstdint>

#include "kernels/embedding/embedding_ref.h"
#include "kernels/spec/baseline.h"

namespace metalsim::kernels::embedding {

// out [tokens, dim] half: row t = table[ids[t]] * scale, zeros for an id >= vocab.
void lookup_f16_baseline(const uint32_t* ids, int64_t tokens, const half_t* table, int64_t vocab,
                         int64_t dim, float scale, half_t* out);
void lookup_q8_0_baseline(const uint32_t* ids, int64_t tokens, const BlockQ8_0* table,
                          int64_t vocab, int64_t dim, float scale, half_t* out);
// out[r]: the index of row r's largest logit (ties: the lowest index; NaN skipped; cols when all
// are NaN, as the reference).
void argmax_baseline(const float* logits, int64_t rows, int64_t cols, uint32_t* out);

}  // namespace metalsim::kernels::embedding
