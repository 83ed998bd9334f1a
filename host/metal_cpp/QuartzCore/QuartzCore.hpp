#pragma once
// metal-cpp's <QuartzCore/QuartzCore.hpp> for code written against Apple's metal-cpp: forwards to
// metalsim's host API. It declares no CA:: class (metalsim has no layers or drawables); MLX
// includes it only through metal-cpp's umbrella. CA_PRIVATE_IMPLEMENTATION changes nothing here.
// docs/porting.md, "Your metal-cpp program on Linux".
#include "metalsim/Metal.hpp"
