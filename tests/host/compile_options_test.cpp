// MTL::CompileOptions' math mode as Metal defines it: fast by default, fastMathEnabled switching
// the mode and the math functions together, mathMode on its own.
#include <gtest/gtest.h>

#include "metalsim/Metal.hpp"

namespace {

TEST(CompileOptions, MetalsDefaultIsFastMath) {
  auto o = NS::TransferPtr(MTL::CompileOptions::alloc()->init());
  EXPECT_TRUE(o->fastMathEnabled());
  EXPECT_EQ(o->mathMode(), MTL::MathModeFast);
  EXPECT_EQ(o->mathFloatingPointFunctions(), MTL::MathFloatingPointFunctionsFast);
}

TEST(CompileOptions, FastMathEnabledSetsModeAndFunctions) {
  auto o = NS::TransferPtr(MTL::CompileOptions::alloc()->init());
  o->setFastMathEnabled(false);
  EXPECT_FALSE(o->fastMathEnabled());
  EXPECT_EQ(o->mathMode(), MTL::MathModeSafe);
  EXPECT_EQ(o->mathFloatingPointFunctions(), MTL::MathFloatingPointFunctionsPrecise);
  o->setFastMathEnabled(true);
  EXPECT_EQ(o->mathMode(), MTL::MathModeFast);
  EXPECT_EQ(o->mathFloatingPointFunctions(), MTL::MathFloatingPointFunctionsFast);
}

TEST(CompileOptions, MathModeAlone) {
  auto o = NS::TransferPtr(MTL::CompileOptions::alloc()->init());
  o->setMathMode(MTL::MathModeRelaxed);
  EXPECT_EQ(o->mathMode(), MTL::MathModeRelaxed);
  EXPECT_FALSE(o->fastMathEnabled());
  EXPECT_EQ(o->mathFloatingPointFunctions(), MTL::MathFloatingPointFunctionsFast);
}

}  // namespace
