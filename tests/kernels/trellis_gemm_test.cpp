// TrellisLinear's dispatch (the document's TrellisLinear.forward, sections 2.1 and 2.2). The
// boundary sweeps of both kernels (bits 2, 3, 4; M = 1 .. 512 around 16, 32 and 64; K and N off
// the tile multiples; group sizes 32 and 128) are the specs' (trellis_spec.cpp), run by
// spec_sweep_test.cpp.
#include <gtest/gtest.h>

#include "kernels/trellis/trellis_debug.h"
#include "tests/kernels/trellis_harness.h"

namespace metalsim::kernels::trellis {
namespace {

TEST(TrellisLinear, MUpTo16TakesTheDecodeKernel) {
  EXPECT_EQ(choose_kernel(1), TrellisKernel::decode);
  EXPECT_EQ(choose_kernel(16), TrellisKernel::decode);
  EXPECT_EQ(choose_kernel(17), TrellisKernel::prefill);
  EXPECT_EQ(choose_kernel(512), TrellisKernel::prefill);
}

TEST(TrellisLinear, GridsAreSection22s) {
  const GemmProblem p = make_gemm_problem({17, 32, 200, 3, 32, 0}, 1);
  DebugCapture capture;
  testing::run_linear(p, TrellisKernel::prefill);  // ceil(200 / 64) x ceil(17 / 64)
  testing::run_linear(p, TrellisKernel::decode);   // ceil(200 / 128) x ceil(17 / 32)
  EXPECT_NE(capture.text().find("grid=[4, 1, 1], threadgroup=[128, 1, 1], threadgroup_memory=9216"),
            std::string::npos)
      << capture.text();
  EXPECT_NE(capture.text().find("grid=[2, 1, 1], threadgroup=[128, 1, 1], threadgroup_memory=5120"),
            std::string::npos)
      << capture.text();
}

// forward = x.view(-1, in_features): any whole number of rows, each kernel's result the same.
TEST(TrellisLinear, ForwardMatchesEncodeAndTheReference) {
  const GemmProblem p = make_gemm_problem({3, 48, 40, 4, 32, 0}, 2);
  TrellisLinear linear(testing::device(), p.weights);
  const std::vector<half_t> y = linear.forward(testing::queue(), p.a);
  const testing::Run run = testing::run_linear(p);
  ASSERT_TRUE(run.result.passed) << testing::describe(run);
  EXPECT_EQ(y, run.out);
}

TEST(TrellisLinear, BuffersShorterThanMRowsAreRejected) {
  const GemmProblem p = make_gemm_problem({4, 32, 16, 2, 32, 0}, 3);
  TrellisLinear linear(testing::device(), p.weights);
  auto a = testing::upload(p.a);
  auto c = testing::poisoned(4 * 16);
  MTL::CommandBuffer* cb = testing::queue()->commandBuffer();
  MTL::ComputeCommandEncoder* encoder = cb->computeCommandEncoder();
  try {
    linear.encode(encoder, a.get(), c.get(), 5);
    FAIL() << "encoded 5 rows of A from a buffer of 4";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "TrellisLinear: A [M = 5, K = 32] needs 320 bytes, the buffer has 256");
  }
  encoder->endEncoding();
}

}  // namespace
}  // namespace metalsim::kernels::trellis
