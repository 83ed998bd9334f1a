// Threadgroup-wide reductions over simdgroups of 32: each simdgroup reduces in registers, then
// simdgroup 0 reduces the partial results kept in `buf` (one float per simdgroup).
#pragma once

#include <metal_stdlib>

using namespace metal;

template <typename Op>
inline float lsim_threadgroup_reduce(float v, threadgroup float* buf, uint nsg, uint sgitg,
                                     uint tiisg, float identity, Op op) {
  v = op.simd(v);
  if (nsg == 1) return v;
  if (tiisg == 0) buf[sgitg] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float partial = tiisg < nsg ? buf[tiisg] : identity;
  partial = op.simd(partial);
  threadgroup_barrier(mem_flags::mem_threadgroup);  // buf is reused by the next reduction
  return partial;
}

struct lsim_max_op {
  float simd(float v) const { return simd_max(v); }
};
struct lsim_sum_op {
  float simd(float v) const { return simd_sum(v); }
};
