#pragma once
// The ceiling of issue 24 item 1: softmax, rms_norm and flash attention written by hand as the
// lane loops a vectorizing lane-loop pass should make of their .metal kernels. One function runs
// one threadgroup, phase by phase (a threadgroup barrier ends a phase); inside a phase a
// simdgroup's 32 lanes are vector lanes, per-lane state is an array across the lanes, and the
// kernel's per-lane strided loops run with the loop over lanes innermost. Each follows its kernel
// operation for operation (same threadgroup size, same reduction trees, the kernels' own `exp`),
// so it rounds as the kernel does. The caller (ceiling_bench.cpp) hands threadgroups to OpenMP.
//
// Compiled by the kernel compiler with the kernels' flags (bench/CMakeLists.txt), so the
// vectorizer that would compile the pass's output compiles this.
#include <cstdint>

#include "kernels/attention/attention_ref.h"

namespace metalsim::ceiling {

using half_t = _Float16;

// The largest threadgroup the row ceilings take (softmax, rms_norm: `threads` lanes, any count).
inline constexpr uint32_t kMaxThreads = 1024;

// kernels/softmax/softmax.metal `softmax`, threadgroup `tgid` (row tgid of x [rows, cols], in
// place), `threads` lanes.
void softmax_threadgroup(half_t* x, uint32_t rows, uint32_t cols, uint32_t threads, uint32_t tgid);

// kernels/elementwise/elementwise.metal `rms_norm` (weight_offset 0) and `rms_norm_plus_one` (1).
void rms_norm_threadgroup(const half_t* input, const half_t* weight, half_t* output,
                          uint32_t hidden, float eps, float weight_offset, uint32_t threads,
                          uint32_t tgid);

// kernels/attention/attention.metal `flash_attention_forward` (no mask), threadgroup
// (q_tile, head, batch) of the grid (ceil(seq_q / 32), heads, batch), 128 lanes. head_dim must be
// a multiple of 32, at most 128.
void flash_attention_threadgroup(const kernels::attention::AttentionProblem& p, const half_t* q,
                                 const half_t* k, const half_t* v, half_t* o, uint32_t q_tile,
                                 uint32_t head, uint32_t batch);

}  // namespace metalsim::ceiling
