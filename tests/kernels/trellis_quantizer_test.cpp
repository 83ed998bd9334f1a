// The quantizer: the document's grid, nearest-level indices, signed scales, and a dequantized
// matrix within half a level step (times the scale) of the dense one.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/spec/inputs.h"
#include "kernels/trellis/trellis_quantizer.h"
#include "kernels/trellis/trellis_ref.h"

namespace metalsim::kernels::trellis {
namespace {

QuantizerOptions options(uint32_t bits, uint32_t group_size, uint64_t sign_seed = 1) {
  QuantizerOptions o;
  o.bits = bits;
  o.group_size = group_size;
  o.sign_seed = sign_seed;
  return o;
}

TEST(TrellisQuantizer, ThreeBitGridIsTheDocumentsExample) {
  EXPECT_EQ(make_grid(3),
            (std::vector<float>{-0.75f, -0.5f, -0.25f, 0.0f, 0.25f, 0.5f, 0.75f, 1.0f}));
  EXPECT_EQ(make_grid(2), (std::vector<float>{-0.5f, 0.0f, 0.5f, 1.0f}));
  EXPECT_EQ(make_grid(4).size(), 16u);
  EXPECT_EQ(make_grid(4).back(), 1.0f);
}

TEST(TrellisQuantizer, NearestLevelTakesTheLowerIndexOnATie) {
  const std::vector<float> grid = make_grid(2);
  EXPECT_EQ(nearest_level(grid, 0.25f), 1u);
  EXPECT_EQ(nearest_level(grid, 0.26f), 2u);
  EXPECT_EQ(nearest_level(grid, -3.0f), 0u);
}

// Every weight's index is the level nearest to w * su * sv / scale, each scale is the group's
// signed value of largest magnitude, and the dequantized weight is within the gap to that level.
TEST(TrellisQuantizer, IndicesAreNearestLevelsOfSignedGroupScales) {
  for (uint32_t bits : {2u, 3u, 4u})
    for (uint32_t group : {32u, 128u}) {
      const uint32_t K = 150, N = 19;
      spec::InputGenerator gen(bits * 1000 + group);
      std::vector<float> dense(size_t(K) * N);
      for (float& w : dense) w = float(gen.normal());
      const TrellisWeights w = quantize(dense, K, N, 1, options(bits, group, 7));
      size_t negative_scales = 0;
      for (uint32_t k = 0; k < K; ++k)
        for (uint32_t n = 0; n < N; ++n) {
          const float su = w.su[k], sv = w.sv[n];
          ASSERT_TRUE(std::fabs(su) == 1.0f && std::fabs(sv) == 1.0f);
          const float scale = w.scales[size_t(k / group) * N + n];
          const float target = dense[size_t(k) * N + n] * su * sv;
          ASSERT_LE(std::fabs(target), std::fabs(scale))
              << "scale is the group's largest magnitude";
          const uint32_t idx = w.index(0, k, n);
          EXPECT_EQ(idx, nearest_level(w.grid, target / scale))
              << bits << " bits, (" << k << ", " << n << ")";
          const float gap = std::fabs(target / scale - w.grid[idx]) * std::fabs(scale);
          const float dequantized = w.grid[idx] * scale * su * sv;
          EXPECT_NEAR(dequantized, dense[size_t(k) * N + n], gap * 1.0001f + 1e-6f);
          negative_scales += scale < 0 && k % group == 0;
        }
      EXPECT_GT(negative_scales, 0u) << "groups whose extreme is negative take a negative scale";
    }
}

TEST(TrellisQuantizer, DequantizedMatrixIsCloseToTheDenseOne) {
  const uint32_t K = 256, N = 64;
  spec::InputGenerator gen(3);
  std::vector<float> dense(size_t(K) * N);
  for (float& w : dense) w = float(gen.normal());
  double previous = INFINITY;
  for (uint32_t bits : {2u, 3u, 4u}) {  // more bits, less error
    const MatrixXdR deq = dequantize(quantize(dense, K, N, 1, options(bits, 32)));
    double err = 0, norm = 0;
    for (uint32_t i = 0; i < K * N; ++i) {
      err += std::pow(deq.data()[i] - double(dense[i]), 2);
      norm += std::pow(double(dense[i]), 2);
    }
    const double relative = std::sqrt(err / norm);
    EXPECT_LT(relative, previous) << bits << " bits";
    EXPECT_LT(relative, 1.0 / (1 << (bits - 1))) << bits << " bits: below one grid step";
    previous = relative;
  }
}

TEST(TrellisQuantizer, AZeroGroupGetsAZeroScaleAndTheZeroLevel) {
  const std::vector<float> dense(size_t(32) * 2, 0.0f);
  const TrellisWeights w = quantize(dense, 32, 2, 1, options(3, 32));
  EXPECT_EQ(w.scales, (std::vector<float>{0.0f, 0.0f}));
  EXPECT_EQ(w.grid[w.index(0, 5, 1)], 0.0f);
}

}  // namespace
}  // namespace metalsim::kernels::trellis
