// Quantized matmul family: GGML layouts decoded by hand, and K not a multiple of the block
// rejected with a message rather than truncated.
#include <gtest/gtest.h>

#include "kernels/quantized_matmul/quantized_matmul_ref.h"
#include "kernels/spec/case_runner.h"

namespace metalsim::kernels::quantized_matmul {
namespace {

TEST(Q4_0Layout, LowNibblesAreTheFirstSixteenElements) {
  BlockQ4_0 b{half_t(2), {}};
  b.qs[0] = 0xA1;  // element 0: 1 - 8 = -7; element 16: 10 - 8 = 2
  b.qs[15] = 0x09;
  double out[32];
  dequantize(&b, 32, out);
  EXPECT_EQ(out[0], -14.0);
  EXPECT_EQ(out[16], 4.0);
  EXPECT_EQ(out[15], 2.0);
  EXPECT_EQ(out[31], -16.0);
  EXPECT_EQ(out[1], -16.0);
}

TEST(Q4_KLayout, SixBitScalesAndMinsOfTheUpperSubBlocks) {
  BlockQ4_K b{};
  b.d = half_t(1);
  b.dmin = half_t(1);
  b.scales[0] = 0xC0 | 5;  // sub-block 0 scale 5; top bits 3 -> sub-block 4's scale bits 4..5
  b.scales[4] = 0x40 | 7;  // sub-block 0 min 7; top bits 1 -> sub-block 4's min bits 4..5
  b.scales[8] = 0x21;      // sub-block 4: scale low 1, min low 2
  b.qs[0] = 0x03;          // element 0 = 3; element 32 = 0
  b.qs[64] = 0x01;         // element 128 (sub-block 4) = 1
  double out[256];
  dequantize(&b, 256, out);
  EXPECT_EQ(out[0], 5.0 * 3 - 7);
  EXPECT_EQ(out[128], double((3 << 4) | 1) * 1 - double((1 << 4) | 2));
}

TEST(QuantizedMatmul, KNotAMultipleOfTheBlockIsRejected) {
  for (const char* name : {"matmul_q4_0", "matmul_q8_0", "matmul_q4_k", "matmul_q5_k"}) {
    const spec::KernelSpec* s = spec::SpecRegistry::find(name);
    ASSERT_NE(s, nullptr) << name;
    const auto r =
        spec::run_case(*s, {{"M", 2}, {"N", 1}, {"K", 33}}, metalsim::ExecutionOptions{});
    EXPECT_FALSE(r.passed) << name;
    EXPECT_NE(r.failure.find("not a multiple"), std::string::npos) << name << ": " << r.failure;
  }
}

}  // namespace
}  // namespace metalsim::kernels::quantized_matmul
