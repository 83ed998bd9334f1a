// metal_tool_test.cpp: a file linked beside scale.metal whose function constant has the same
// index as scale.metal's tool_flag and another type, as MLX's conv.metal and rope.metal do in
// mlx.metallib. Metal keeps function constants per source; each kernel takes the value of its own.
#include <metal_stdlib>
using namespace metal;

constant int tool_shift [[function_constant(3)]];

kernel void tool_add_shift(device float* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  v[i] = v[i] + float(tool_shift);
}
