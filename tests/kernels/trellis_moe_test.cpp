// TrellisMoE: routing and shape errors, a tile most experts skip, and every trellis kernel
// byte-identical under every schedule. The MoE sweep (1 to 8 experts, top_k 1 and 2, bits 2, 3,
// 4, tokens around the 32-row tiles, sizes off the tile multiples) is gemm_trellis_moe's spec.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/kernels/trellis_harness.h"

namespace metalsim::kernels::trellis {
namespace {

using testing::describe;
using testing::run_moe;

TEST(TrellisMoe, ATokenOfNoExpertInTheTileStillGetsItsOwnOutput) {
  // 3 tokens, 8 experts, top_k 1: most experts are unused by the tile and skipped.
  const testing::Run run = run_moe(make_moe_problem({3, 32, 32, 8, 1, 4, 32}, 5));
  EXPECT_TRUE(run.result.passed) << describe(run);
}

TEST(TrellisMoe, RoutingErrorsNameTheEntry) {
  const uint32_t bad_id[] = {0, 1, 2, 9};
  try {
    check_routing(bad_id, 2, 2, 8);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "TrellisMoE: expert_ids[1, 1] = 9 is not below num_experts = 8");
  }
  const uint32_t twice[] = {0, 1, 5, 5};
  try {
    check_routing(twice, 2, 2, 8);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "TrellisMoE: token 1 routes to expert 5 twice (j = 0 and 1)");
  }
}

TEST(TrellisMoe, ProjectionsThatDoNotFitAreRejected) {
  MoeProblem p = make_moe_problem({1, 32, 48, 2, 1, 4, 32}, 1);
  std::swap(p.down, p.up);  // down is [48, 32]; up must be [32, 48]
  try {
    TrellisMoE moe(testing::device(), p.gate, p.up, p.down, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "TrellisMoE: up_proj is [48, 32], gate_proj [32, 48]");
  }
}

// A race-free kernel gives the same bytes under every schedule (docs/architecture.md); the GEMMs
// and the MoE pair are run in order, reversed and at a random seed.
TEST(TrellisSchedules, EveryKernelGivesTheSameBytesUnderEverySchedule) {
  const GemmProblem prefill = make_gemm_problem({70, 40, 72, 3, 32, 0}, 11);  // two tile rows
  const GemmProblem decode = make_gemm_problem({5, 40, 140, 2, 32, 0}, 12);   // two tile columns
  const MoeProblem moe = make_moe_problem({33, 40, 40, 4, 2, 4, 32}, 13);     // two token tiles
  std::vector<half_t> first[3];
  for (const char* schedule : {"in-order", "reversed", "random:3"}) {
    metalsim::ExecutionOptions o = testing::checked();
    ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, o.schedule));
    const testing::Run runs[3] = {testing::run_linear(prefill, TrellisKernel::automatic, o),
                                  testing::run_linear(decode, TrellisKernel::automatic, o),
                                  run_moe(moe, o)};
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(runs[i].result.passed) << schedule << " " << i << ": " << describe(runs[i]);
      if (first[i].empty()) first[i] = runs[i].out;
      EXPECT_EQ(std::memcmp(first[i].data(), runs[i].out.data(), first[i].size() * sizeof(half_t)),
                0)
          << schedule << ": kernel " << i << " differs from in-order";
    }
  }
}

}  // namespace
}  // namespace metalsim::kernels::trellis
