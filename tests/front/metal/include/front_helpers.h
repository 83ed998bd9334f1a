// MSL in a local header (inlined by the front): address-space overloads as MLX writes them,
// and a helper with a function-scope threadgroup array.
#pragma once
#include <metal_stdlib>
using namespace metal;

#ifndef METAL_FUNC
#define METAL_FUNC inline
#endif

template <typename T>
METAL_FUNC T load_first(const device T* p) {
  return p[0];
}
template <typename T>
METAL_FUNC T load_first(const threadgroup T* p) {
  return p[0];
}

// Sums `v` over the threadgroup (lanes < 32) through function-scope threadgroup memory.
inline float helper_sum(float v, uint lane) {
  threadgroup float partial[32];
  partial[lane] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float s = 0.0f;
  for (uint i = 0; i < 32; ++i) s += partial[i];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  return s;
}
