// A user's tiled matmul, as a kernel author would write it, with the case files that run, check
// and fuzz it from the command line (docs/cli.md, "Case files"), and two planted bugs.
//
// C = A * B (row-major, A is M x K, B is K x N), one thread per element of C. Square tiles of
// threads_per_threadgroup.x threads stage A and B in threadgroup memory; every tile size adds
// the products of a row in the same order (k = 0 .. K-1, then zeros), so every tile size, and
// the naive kernel, give bit-identical results.
#include <metal_stdlib>
using namespace metal;

struct MatmulShape {
  uint M;
  uint N;
  uint K;
};

kernel void matmul_tiled(device const float* A [[buffer(0)]],
                         device const float* B [[buffer(1)]],
                         device float* C [[buffer(2)]],
                         constant MatmulShape& s [[buffer(3)]],
                         threadgroup float* As [[threadgroup(0)]],
                         threadgroup float* Bs [[threadgroup(1)]],
                         uint2 tid [[thread_position_in_threadgroup]],
                         uint2 tg [[threadgroup_position_in_grid]],
                         uint2 size [[threads_per_threadgroup]]) {
  const uint T = size.x;
  const uint row = tg.y * T + tid.y;
  const uint col = tg.x * T + tid.x;
  float sum = 0.0f;
  for (uint k0 = 0; k0 < s.K; k0 += T) {
    const uint ka = k0 + tid.x;
    const uint kb = k0 + tid.y;
    As[tid.y * T + tid.x] = (row < s.M && ka < s.K) ? A[row * s.K + ka] : 0.0f;
    Bs[tid.y * T + tid.x] = (kb < s.K && col < s.N) ? B[kb * s.N + col] : 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint k = 0; k < T; ++k) sum += As[tid.y * T + k] * Bs[k * T + tid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (row < s.M && col < s.N) C[row * s.N + col] = sum;
}

// The reference: one thread per element, no threadgroup memory.
kernel void matmul_naive(device const float* A [[buffer(0)]],
                         device const float* B [[buffer(1)]],
                         device float* C [[buffer(2)]],
                         constant MatmulShape& s [[buffer(3)]],
                         uint2 gid [[thread_position_in_grid]]) {
  if (gid.y >= s.M || gid.x >= s.N) return;
  float sum = 0.0f;
  for (uint k = 0; k < s.K; ++k) sum += A[gid.y * s.K + k] * B[k * s.N + gid.x];
  C[gid.y * s.N + gid.x] = sum;
}

// Planted: the barrier between loading a tile and reading it is missing; threads read their
// neighbours' slots before the neighbours have written them.
kernel void matmul_missing_barrier(device const float* A [[buffer(0)]],
                                   device const float* B [[buffer(1)]],
                                   device float* C [[buffer(2)]],
                                   constant MatmulShape& s [[buffer(3)]],
                                   threadgroup float* As [[threadgroup(0)]],
                                   threadgroup float* Bs [[threadgroup(1)]],
                                   uint2 tid [[thread_position_in_threadgroup]],
                                   uint2 tg [[threadgroup_position_in_grid]],
                                   uint2 size [[threads_per_threadgroup]]) {
  const uint T = size.x;
  const uint row = tg.y * T + tid.y;
  const uint col = tg.x * T + tid.x;
  float sum = 0.0f;
  for (uint k0 = 0; k0 < s.K; k0 += T) {
    const uint ka = k0 + tid.x;
    const uint kb = k0 + tid.y;
    As[tid.y * T + tid.x] = (row < s.M && ka < s.K) ? A[row * s.K + ka] : 0.0f;
    Bs[tid.y * T + tid.x] = (kb < s.K && col < s.N) ? B[kb * s.N + col] : 0.0f;
    for (uint k = 0; k < T; ++k) sum += As[tid.y * T + k] * Bs[k * T + tid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (row < s.M && col < s.N) C[row * s.N + col] = sum;
}

// Planted: an off-by-one in A's bound (<= for <): the thread past the last column of A reads
// one element too far, past the end of A on the last row.
kernel void matmul_off_by_one(device const float* A [[buffer(0)]],
                              device const float* B [[buffer(1)]],
                              device float* C [[buffer(2)]],
                              constant MatmulShape& s [[buffer(3)]],
                              threadgroup float* As [[threadgroup(0)]],
                              threadgroup float* Bs [[threadgroup(1)]],
                              uint2 tid [[thread_position_in_threadgroup]],
                              uint2 tg [[threadgroup_position_in_grid]],
                              uint2 size [[threads_per_threadgroup]]) {
  const uint T = size.x;
  const uint row = tg.y * T + tid.y;
  const uint col = tg.x * T + tid.x;
  float sum = 0.0f;
  for (uint k0 = 0; k0 < s.K; k0 += T) {
    const uint ka = k0 + tid.x;
    const uint kb = k0 + tid.y;
    As[tid.y * T + tid.x] = (row < s.M && ka <= s.K) ? A[row * s.K + ka] : 0.0f;
    Bs[tid.y * T + tid.x] = (kb < s.K && col < s.N) ? B[kb * s.N + col] : 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint k = 0; k < T; ++k) sum += As[tid.y * T + k] * Bs[k * T + tid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (row < s.M && col < s.N) C[row * s.N + col] = sum;
}
