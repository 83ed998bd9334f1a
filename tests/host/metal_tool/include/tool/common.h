// Included by both kernel files of metal_tool_test.cpp from an include root (-I include): once
// in the linked library (#pragma once), as one translation unit needs.
#pragma once
#include <metal_stdlib>

#include "tool/offsets.h"

inline float tool_scaled(float x, float by) { return x * by + TOOL_OFFSET; }
