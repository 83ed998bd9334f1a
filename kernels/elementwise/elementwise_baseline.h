#pragma once
// The element-wise family's fast native baselines (kernels/spec/baseline.h): float, Eigen's
// vectorized exp and tanh, chunks or rows over the OpenMP threads. Same math as the references
// (elementwise_ref.h), in float.
#include <cstddef>
#include <cstdint>

#include "kernels/spec/baseline.h"

namespace metalsim::kernels::elementwise {

using spec::baseline::half_t;

void silu_baseline(const half_t* x, half_t* out, size_t n);
void gelu_baseline(const half_t* x, half_t* out, size_t n);
void multiply_baseline(const half_t* a, const half_t* b, half_t* out, size_t n);
void swiglu_baseline(const half_t* gate, const half_t* up, half_t* out, size_t n);
void rms_norm_baseline(const half_t* x, const half_t* weight, half_t* out, int64_t rows,
                       int64_t hidden, float eps, float weight_offset);
// x [seq, heads, head_dim] rotated into out.
void rope_baseline(const half_t* x, half_t* out, int64_t seq, int64_t heads, int64_t head_dim,
                   int64_t position_offset, float theta_base);

}  // namespace metalsim::kernels::elementwise
