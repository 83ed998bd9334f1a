// metal_tool_test.cpp: the other file linked into the library, with its own include of common.h.
#include "tool/common.h"
using namespace metal;

constant bool tool_flag [[function_constant(3)]];

kernel void tool_negate(device float* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  float x = -tool_scaled(v[i], 2.0f);
  v[i] = (is_function_constant_defined(tool_flag) && tool_flag) ? x - 1.0f : x;
}
