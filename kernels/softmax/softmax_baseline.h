#pragma once
// The softmax family's fast native baseline (kernels/spec/baseline.h): float, Eigen's vectorized
// exp, rows over the OpenMP threads.
#include <cstdint>

#include "kernels/spec/baseline.h"

namespace metalsim::kernels::softmax {

// out = softmax of each row of x [rows, cols]; a row of all -inf gives 0.
void softmax_baseline(const spec::baseline::half_t* x, spec::baseline::half_t* out, int64_t rows,
                      int64_t cols);

}  // namespace metalsim::kernels::softmax
