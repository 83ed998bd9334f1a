#pragma once
// Eigen references for the element-wise family, computed in double from the half inputs;
// the spec rounds the result to half only when comparing (compare_output takes doubles).
#include <cstdint>
#include <vector>

namespace metalsim::kernels::elementwise {

using half_t = _Float16;

std::vector<double> silu_ref(const std::vector<half_t>& x);
std::vector<double> gelu_ref(const std::vector<half_t>& x);  // tanh form
std::vector<double> multiply_ref(const std::vector<half_t>& a, const std::vector<half_t>& b);
std::vector<double> swiglu_ref(const std::vector<half_t>& gate, const std::vector<half_t>& up);

// rows x hidden_dim, row-major; weight_offset 0 (Llama) or 1 (Gemma's 1 + weight).
std::vector<double> rms_norm_ref(const std::vector<half_t>& x, const std::vector<half_t>& weight,
                                 int64_t rows, int64_t hidden_dim, double eps, double weight_offset);

// In place on x [seq_len, heads, head_dim]: non-interleaved halves, positions from offset.
std::vector<double> rope_ref(const std::vector<half_t>& x, int64_t seq_len, int64_t heads,
                             int64_t head_dim, int64_t position_offset, double theta_base);

}  // namespace metalsim::kernels::elementwise
