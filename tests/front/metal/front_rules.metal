// Every rule of the front in one file (tests/front/metal_library_test.cpp checks its
// reflection and runs it).
#include <metal_stdlib>
#include "front_helpers.h"
using namespace metal;

struct Params {
  uint n;
  float scale;
};

constant bool has_bias [[function_constant(0)]];
constant int bias_value [[function_constant(1)]];
constant bool add_bias = has_bias && is_function_constant_defined(bias_value);

constant float kWeights[8] = { [0 ... 3] = 1.0f, [4 ... 7] = 2.0f };
constant half kHalf = 0.5h;

// out[i] = (in[i] * scale + kWeights[lane % 8] + kHalf) + bias, then
// sum of the 32 lanes' values through a kernel-scope array in out2.
[[max_total_threads_per_threadgroup(64)]]
kernel void front_rules(device const float* in [[buffer(0)]],
                        constant Params& params [[buffer(1)]],
                        device float* out [[buffer(2)]],
                        threadgroup float* scratch [[threadgroup(0)]],
                        device float* out2 [[buffer(3)]],
                        uint3 tid [[thread_position_in_threadgroup]],
                        ushort lane [[thread_index_in_simdgroup]],
                        uint gid [[thread_position_in_grid]]) {
  threadgroup float tile[32];
  threadgroup int counts[2][4];
  if (gid >= params.n) return;
  float v = in[gid] * params.scale + kWeights[lane % 8] + float(kHalf);
  if (add_bias) v += float(bias_value);
  out[gid] = v;
  tile[tid.x] = v;
  scratch[tid.x] = 1.0h;
  counts[0][0] = 0;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out2[gid] = load_first(tile) + load_first(in) + load_first(scratch) + helper_sum(1.0f, tid.x);
}

[[kernel]] void front_no_args_used(device int* flag [[buffer(0)]]) {
  flag[0] = 7;
}
