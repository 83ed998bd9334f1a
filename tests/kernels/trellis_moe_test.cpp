// gemm_trellis_moe_gate_up and gemm_trellis_moe_down through TrellisMoE against the Eigen
// reference, every check on: 1 to 8 experts, top_k 1 and 2, bits 2, 3, 4, token counts around
// the 32-row tiles, hidden and intermediate sizes off the tile multiples; and the routing errors.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/kernels/trellis_harness.h"

namespace metalsim::kernels::trellis {
namespace {

using testing::describe;
using testing::run_moe;

std::string name_of(const ::testing::TestParamInfo<MoeShape>& info) {
  const MoeShape& s = info.param;
  return "M" + std::to_string(s.M) + "_H" + std::to_string(s.hidden) + "_I" + std::to_string(s.intermediate) + "_E" +
         std::to_string(s.experts) + "_k" + std::to_string(s.top_k) + "_b" + std::to_string(s.bits) + "_g" +
         std::to_string(s.group_size);
}

std::vector<MoeShape> sweep() {
  return {
      {1, 64, 64, 1, 1, 4, 32},      // one expert, one token
      {1, 40, 72, 8, 2, 3, 128},     // decode: one token, two of eight experts
      {5, 33, 17, 2, 2, 2, 32},      // every token uses both experts; partial 16x16 tiles
      {33, 64, 48, 4, 1, 4, 128},    // 33 tokens: a second row of tiles
      {65, 48, 130, 3, 2, 3, 32},    // intermediate past one 128-column tile
      {40, 130, 40, 8, 2, 2, 128},   // hidden past one 128-column tile (the down kernel's)
      {70, 32, 32, 2, 1, 4, 32},     // more than 32 slots for one expert: two slot tiles
  };
}

class TrellisMoeSweep : public ::testing::TestWithParam<MoeShape> {};

TEST_P(TrellisMoeSweep, MatchesTheReferenceWithEveryCheckOn) {
  const testing::Run run = run_moe(make_moe_problem(GetParam(), 1));
  EXPECT_TRUE(run.result.passed) << describe(run);
  EXPECT_EQ(run.result.unwritten, 0u);
  EXPECT_EQ(run.result.non_finite, 0u);
}

INSTANTIATE_TEST_SUITE_P(Trellis, TrellisMoeSweep, ::testing::ValuesIn(sweep()), name_of);

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
// and the MoE pair are run in order, reversed and at two random seeds.
TEST(TrellisSchedules, EveryKernelGivesTheSameBytesUnderEverySchedule) {
  const GemmProblem prefill = make_gemm_problem({70, 72, 80, 3, 32, 0}, 11);
  const GemmProblem decode = make_gemm_problem({5, 72, 140, 2, 32, 0}, 12);
  const MoeProblem moe = make_moe_problem({40, 48, 40, 4, 2, 4, 32}, 13);
  std::vector<half_t> first[3];
  for (const char* schedule : {"in-order", "reversed", "random:3", "random:11"}) {
    engine::ExecutionOptions o = testing::checked();
    ASSERT_TRUE(engine::SchedulePolicy::parse(schedule, o.schedule));
    const testing::Run runs[3] = {testing::run_linear(prefill, TrellisKernel::automatic, o),
                                  testing::run_linear(decode, TrellisKernel::automatic, o), run_moe(moe, o)};
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(runs[i].result.passed) << schedule << " " << i << ": " << describe(runs[i]);
      if (first[i].empty()) first[i] = runs[i].out;
      EXPECT_EQ(std::memcmp(first[i].data(), runs[i].out.data(), first[i].size() * sizeof(half_t)), 0)
          << schedule << ": kernel " << i << " differs from in-order";
    }
  }
}

}  // namespace
}  // namespace metalsim::kernels::trellis
