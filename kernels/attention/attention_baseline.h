#pragma once
// The attention family's fast native baseline (kernels/spec/baseline.h): per (batch, head, block
// of 64 query rows), S = Q K^T, softmax and O = P V as float Eigen matrix products, the blocks
// over the OpenMP threads; a causal block multiplies only the keys it can see. The same
// AttentionProblem as the reference (views, GQA, causal, additive mask).
#include "kernels/attention/attention_ref.h"

namespace metalsim::kernels::attention {

void attention_baseline(const AttentionProblem& p, const half_t* q, const half_t* k,
                        const half_t* v, half_t* out);

}  // namespace metalsim::kernels::attention
