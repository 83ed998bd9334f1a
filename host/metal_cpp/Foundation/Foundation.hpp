#pragma once
// metal-cpp's <Foundation/Foundation.hpp> for code written against Apple's metal-cpp (MLX's Metal
// backend): forwards to metalsim's host API. metal-cpp's NS_/MTL_/CA_PRIVATE_IMPLEMENTATION macros,
// which one source file defines before this include to emit metal-cpp's symbols, change nothing
// here: metalsim::host (libmetalsim_host.a) has them. docs/porting.md, "Your metal-cpp program on
// Linux".
#include "metalsim/Metal.hpp"
