// simd.partial: a simdgroup_matrix operation reached by part of a simdgroup (a simd_sum in a
// divergent branch is legal MSL; a simdgroup_matrix operation is not).
#include <metal_stdlib>
using namespace metal;

// The multiply sits in a branch taken by lanes 0..15; all lanes store the result.
kernel void planted_simd_partial_multiply(device const float* a [[buffer(0)]],
                                          device const float* b [[buffer(1)]],
                                          device float* c [[buffer(2)]],
                                          ushort lane [[thread_index_in_simdgroup]]) {
  simdgroup_float8x8 ma, mb, mc;
  simdgroup_load(ma, a, 8);
  simdgroup_load(mb, b, 8);
  mc = simdgroup_float8x8(0.0f);
  if (lane < 16) {
    simdgroup_multiply(mc, ma, mb);  // PLANT: planted_simd_partial_multiply
  }
  simdgroup_store(mc, c, 8);  // PLANT2: planted_simd_partial_multiply
}

// The load sits in a branch on data: lanes whose flag is zero skip it.
kernel void planted_simd_partial_load(device const float* a [[buffer(0)]],
                                      device const uint* flags [[buffer(1)]],
                                      device float* c [[buffer(2)]],
                                      ushort lane [[thread_index_in_simdgroup]]) {
  simdgroup_float8x8 ma = simdgroup_float8x8(1.0f);
  if (flags[lane] != 0) {
    simdgroup_load(ma, a, 8);  // PLANT: planted_simd_partial_load
  }
  simdgroup_store(ma, c, 8);  // PLANT2: planted_simd_partial_load
}
