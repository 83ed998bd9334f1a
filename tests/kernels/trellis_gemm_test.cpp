// gemm_trellis_packed and gemm_trellis_packed_decode through TrellisLinear against the Eigen
// reference, every check on: bits 2, 3, 4; M around the decode/prefill switch (16) and the
// tiles (32, 64); K and N off every tile multiple; group sizes 32 and 128.
#include <gtest/gtest.h>

#include "tests/kernels/trellis_harness.h"

namespace metalsim::kernels::trellis {
namespace {

using testing::describe;
using testing::run_linear;

struct SweepCase {
  GemmShape shape;
  TrellisKernel kernel;
};

std::string name_of(const ::testing::TestParamInfo<SweepCase>& info) {
  const SweepCase& c = info.param;
  const GemmShape& s = c.shape;
  const char* kernel = c.kernel == TrellisKernel::automatic ? "auto" : c.kernel == TrellisKernel::prefill ? "prefill" : "decode";
  return std::string(kernel) + "_M" + std::to_string(s.M) + "_K" + std::to_string(s.K) + "_N" + std::to_string(s.N) +
         "_b" + std::to_string(s.bits) + "_g" + std::to_string(s.group_size) +
         (s.n_levels ? "_L" + std::to_string(s.n_levels) : "");
}

std::vector<SweepCase> sweep() {
  // K, N pairs: tile multiples, one off them, a single partial 16x16 tile, several K steps.
  const uint32_t kn[][2] = {{64, 64}, {40, 72}, {33, 17}, {100, 130}, {16, 129}, {129, 31}};
  std::vector<SweepCase> cases;
  size_t i = 0;
  for (uint32_t m : {1u, 15u, 16u, 17u, 63u, 64u, 65u, 512u})
    for (uint32_t bits : {2u, 3u, 4u}) {
      const uint32_t* shape = kn[i % 6];
      cases.push_back({{m, shape[0], shape[1], bits, i % 2 ? 32u : 128u, 0}, TrellisKernel::automatic});
      ++i;
    }
  // Either kernel is right at any M: the prefill kernel at decode sizes, the decode one past 32.
  cases.push_back({{1, 96, 80, 3, 32, 0}, TrellisKernel::prefill});
  cases.push_back({{65, 70, 140, 4, 32, 0}, TrellisKernel::decode});
  // A grid shorter than 2^bits: indices past it read grid[0] (section 5.1's clamp).
  cases.push_back({{17, 48, 48, 4, 32, 11}, TrellisKernel::automatic});
  cases.push_back({{3, 48, 48, 3, 128, 5}, TrellisKernel::automatic});
  // Group sizes that are not multiples of the 8-row sub-tiles.
  cases.push_back({{20, 70, 50, 2, 5, 0}, TrellisKernel::automatic});
  return cases;
}

class TrellisGemmSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(TrellisGemmSweep, MatchesTheReferenceWithEveryCheckOn) {
  const SweepCase& c = GetParam();
  const testing::Run run = run_linear(make_gemm_problem(c.shape, 1), c.kernel);
  EXPECT_TRUE(run.result.passed) << describe(run);
  EXPECT_EQ(run.result.unwritten, 0u);
  EXPECT_EQ(run.result.non_finite, 0u);
  EXPECT_EQ(run.result.elements, size_t(c.shape.M) * c.shape.N);
}

INSTANTIATE_TEST_SUITE_P(Trellis, TrellisGemmSweep, ::testing::ValuesIn(sweep()),
                         name_of);

}  // namespace
}  // namespace metalsim::kernels::trellis
