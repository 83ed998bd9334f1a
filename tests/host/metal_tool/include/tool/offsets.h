// Included by common.h: the second level of metal_tool_test.cpp's -H list.
#pragma once
#define TOOL_OFFSET 0.25f
