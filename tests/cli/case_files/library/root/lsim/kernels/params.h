// Argument structs and function-constant indices shared by the lsim kernels and their host code,
// in the shape of ggml's ggml-metal-impl.h and MLX's params.h: the host fills these structs with
// setBytes, so their layout is MSL's (the case files under tests/cli/case_files/library/ write
// the same fields, and case_file_test.cpp checks the offsets by hand).
#pragma once

#include "lsim/kernels/defines.h"

// ggml-shaped: softmax with an optional mask, ALiBi slopes and causal masking.
typedef struct {
  int32_t ne00;    // columns
  int32_t ne01;    // rows per head
  int32_t ne02;    // heads
  float scale;     // 1/sqrt(ne00), computed by the host
  float max_bias;  // ALiBi: 0 turns it off
  float m0;        // ALiBi slope bases, computed by the host as ggml's does
  float m1;
  uint32_t n_head_log2;  // the largest power of two <= ne02
  bool causal;           // column j of row i is masked past i + ne00 - ne01
} lsim_soft_max_args;

// MLX-shaped: y = post(alpha * (W x) + beta * y + bias3[row % 3]), clamped, optionally relu'd.
struct lsim_affine_post {
  float mul;
  float add;
};

struct lsim_gemv_params {
  uint3 dims;             // (rows, columns, row stride of W in elements)
  float2 alpha_beta;      // alpha, beta
  bool relu;              // max(y, 0) last
  packed_float3 bias3;    // bias of row r: bias3[r % 3]
  lsim_affine_post post;  // y * mul + add
  float clamp_range[2];   // then clamped to [lo, hi]
};
