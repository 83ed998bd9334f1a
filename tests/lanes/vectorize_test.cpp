// The lane loop of a simple region vectorizes: the step the pass built for axpy_exchange
// (kernels/vector_kernels.cpp), in the optimised IR clang wrote (vector_kernels.ll), works on
// vectors of floats, and its loops carried the parallel marking the vectorizer relies on.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace metalsim::lanes_test {
namespace {

// The text of the function whose name contains `part` and ends in ".lanes.step".
std::string step_function(const std::string& ir, const std::string& part) {
  std::istringstream in(ir);
  std::string text, line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line.rfind("define ", 0) == 0 && line.find(part) != std::string::npos &&
        line.find(".lanes.step(") != std::string::npos)
      inside = true;
    if (inside) text += line + "\n";
    if (inside && line == "}") break;
  }
  return text;
}

// A line of `text` with `op` (e.g. "= fmul <") whose operand type is "<N x float>".
bool has_vector_float(const std::string& text, const std::string& op) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(op);
    if (at == std::string::npos) continue;
    const size_t x = line.find(" x float>", at);
    if (x != std::string::npos && x > at + op.size()) return true;
  }
  return false;
}

TEST(LaneLoopVectorization, TheElementWiseRegionBecomesVectorCode) {
  std::ifstream in(std::string(LANES_OUT_DIR) + "/vector_kernels.ll");
  ASSERT_TRUE(in.good());
  std::string ir;
  for (std::string line; std::getline(in, line);) ir += line + "\n";
  const std::string step = step_function(ir, "axpy_exchange");
  ASSERT_FALSE(step.empty()) << "no step for axpy_exchange in vector_kernels.ll";
  EXPECT_TRUE(has_vector_float(step, "= fmul <") || has_vector_float(step, "= fadd <")) << step;
  EXPECT_TRUE(has_vector_float(step, "= load <")) << step;
  // Without a sync point, the step is one loop over the lanes, vectorized as well.
  const std::string scale = step_function(ir, "scale");
  ASSERT_FALSE(scale.empty()) << "no step for scale in vectorize_kernels.ll";
  EXPECT_TRUE(has_vector_float(scale, "= fmul <")) << scale;
  // A guard (`if (gid >= n) return;`) does not keep a one-dimensional loop scalar: the copy run
  // when every lane passes it has no branch (simt/lanes/lane_guards.h).
  for (const char* guarded : {"guarded_scale", "guarded_by_data"}) {
    const std::string guarded_step = step_function(ir, guarded);
    ASSERT_FALSE(guarded_step.empty()) << "no step for " << guarded;
    EXPECT_TRUE(has_vector_float(guarded_step, "= fmul <")) << guarded_step;
  }
  // A kernel function longer than the inliner's threshold is inlined into the body all the same.
  const std::string long_step = step_function(ir, "long_kernel");
  ASSERT_FALSE(long_step.empty()) << "no step for long_kernel";
  EXPECT_TRUE(has_vector_float(long_step, "= fdiv <")) << long_step;
  // (the fibers' entry still calls it: the optimizer did not inline it there)
  const std::string long_kernel = "@_ZN8metalsim10lanes_test12_GLOBAL__N_111long_kernel";
  EXPECT_EQ(long_step.find(long_kernel), std::string::npos) << long_step;
  EXPECT_NE(ir.find("call fastcc void " + long_kernel), std::string::npos);
  // The vectorizer marks the loops it vectorized.
  EXPECT_NE(ir.find("llvm.loop.isvectorized"), std::string::npos);
}

// A kernel without sync points asks for a full vector (simt/lanes/loop_emitter.cpp,
// lane_loop_vector_width): 8 floats with AVX, else 4, whatever the cost model would pick
// (gated_product's, over halves, is 4 wide without it: -metalsim-lanes-vector-width=-1).
TEST(LaneLoopVectorization, AKernelWithoutSyncPointsRunsAFullVector) {
  std::ifstream in(std::string(LANES_OUT_DIR) + "/vector_kernels.ll");
  ASSERT_TRUE(in.good());
  std::string ir;
  for (std::string line; std::getline(in, line);) ir += line + "\n";
  const bool avx = ir.find("+avx") != std::string::npos;
  const std::string full = avx ? "<8 x float>" : "<4 x float>";
  for (const char* kernel : {"gated_product", "scale", "guarded_scale", "long_kernel"}) {
    const std::string step = step_function(ir, kernel);
    ASSERT_FALSE(step.empty()) << "no step for " << kernel;
    EXPECT_NE(step.find(full), std::string::npos) << kernel << "\n" << step;
  }
}

}  // namespace
}  // namespace metalsim::lanes_test
