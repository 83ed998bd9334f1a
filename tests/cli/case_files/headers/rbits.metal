// Every standard MSL header name, included together by one kernel (issue 25 item 8): the build
// compiles this file into case_file_test and `metalsim run rbits.json` compiles it at run time.
// The kernel uses a function of several headers; its reference is rbits_ref.c, plain C.
#include <metal_array>
#include <metal_atomic>
#include <metal_barrier>
#include <metal_command_buffer>
#include <metal_common>
#include <metal_compute>
#include <metal_geometric>
#include <metal_graphics>
#include <metal_imageblocks>
#include <metal_integer>
#include <metal_interpolate>
#include <metal_logging>
#include <metal_math>
#include <metal_matrix>
#include <metal_mesh>
#include <metal_numeric_limits>
#include <metal_pack>
#include <metal_quadgroup>
#include <metal_raytracing>
#include <metal_relational>
#include <metal_simdgroup>
#include <metal_simdgroup_matrix>
#include <metal_stdlib>
#include <metal_tessellation>
#include <metal_texture>
#include <metal_type_traits>
#include <metal_types>
#include <metal_uniform>
#include <metal_visible_function_table>
using namespace metal;

// out[i] = reverse_bits(x) ^ popcount(x), and count[0] the number of odd inputs, summed over the
// threadgroup's simdgroups and added atomically.
kernel void rbits(device const uint* in [[buffer(0)]], device uint* out [[buffer(1)]],
                  device atomic_uint* odd [[buffer(2)]], constant uint& n [[buffer(3)]],
                  uint i [[thread_position_in_grid]]) {
  const uint x = i < n ? in[i] : 0;
  if (i < n) out[i] = reverse_bits(x) ^ popcount(x);
  const uint odd_here = simd_sum(uint(i < n && (x & 1) != 0));
  threadgroup_barrier(mem_flags::mem_none);
  if (simd_is_first()) atomic_fetch_add_explicit(odd, odd_here, memory_order_relaxed);
}
