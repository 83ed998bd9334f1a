// metal_tool_test.cpp: one of two files metalsim-metal compiles (-c) and links into one library.
// Declares tool_flag as negate.metal does (the linked library keeps it once).
#include "tool/common.h"
using namespace metal;

constant bool tool_flag [[function_constant(3)]];

kernel void tool_scale(device float* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  float x = tool_scaled(v[i], TOOL_FACTOR);
  v[i] = (is_function_constant_defined(tool_flag) && tool_flag) ? x + 1.0f : x;
}
