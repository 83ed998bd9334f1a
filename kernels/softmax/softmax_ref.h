#pragma once
// Eigen reference for the softmax family, in double from the half input.
#include <cstdint>
#include <vector>

namespace metalsim::kernels::softmax {

using half_t = _Float16;

// Row softmax of x [rows, cols]; -inf entries get 0; a row of only -inf entries is all zeros.
std::vector<double> softmax_ref(const std::vector<half_t>& x, int64_t rows, int64_t cols);

}  // namespace metalsim::kernels::softmax
