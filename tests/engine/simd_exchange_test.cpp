// The engine's simd exchange: lanes of one simdgroup at one call site are combined (the
// active mask), lanes at another site are not, lanes that returned take no part; the last
// simdgroup may be partial. The MSL functions themselves are tested in tests/include.
#include <gtest/gtest.h>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

// out = (sum over active lanes of in) * 1000 + popcount(mask)
void sum_combine(const engine::CollectiveCall& call) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < call.count; ++i)
    sum += *static_cast<const uint32_t*>(call.members[i].in);
  for (uint32_t i = 0; i < call.count; ++i)
    *static_cast<uint32_t*>(call.members[i].out) =
        sum * 1000 + uint32_t(__builtin_popcount(call.active_mask));
}

uint32_t simd_sum_u32(uint32_t x, std::source_location site = std::source_location::current()) {
  uint32_t out = 0;
  engine::simd_collective(&sum_combine, &x, &out, 0, engine::SyncKind::SimdCollective, site);
  return out;
}

// Lanes with i % 5 == 4 return early; of the others, i % 3 == 0 sums at one site and the rest
// at another.
void divergent_sums(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  auto* out = buffer<uint32_t>(a, 0);
  if (i % 5 == 4) return;
  if (i % 3 == 0) out[i] = simd_sum_u32(i + 1);
  else out[i] = simd_sum_u32(i + 1) + 500000000u;
}
HandKernel divergent_kernel("test_simd_divergent", {device_arg("out", 0, 4)},
                            &lane_loop<divergent_sums>);

class SimdExchangeTest : public ::testing::TestWithParam<std::tuple<uint32_t, const char*>> {};

TEST_P(SimdExchangeTest, CombinesActiveLanesPerCallSite) {
  auto [n, schedule] = GetParam();
  Harness h;
  ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
  std::vector<uint32_t> poison(n, 0xFFFFFFFFu);
  auto out = h.buffer(poison);
  auto* cb = h.run("test_simd_divergent", [&](auto* e) { e->setBuffer(out.get(), 0, 0); },
                   {1, 1, 1}, {n, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  const auto* got = static_cast<const uint32_t*>(out->contents());
  for (uint32_t i = 0; i < n; ++i) {
    if (i % 5 == 4) {
      EXPECT_EQ(got[i], 0xFFFFFFFFu) << "lane " << i << " returned early";
      continue;
    }
    const uint32_t sg = i / 32;
    uint32_t sum = 0, count = 0;
    for (uint32_t j = sg * 32; j < std::min(n, sg * 32 + 32); ++j) {
      if (j % 5 == 4 || (j % 3 == 0) != (i % 3 == 0)) continue;
      sum += j + 1;
      ++count;
    }
    const uint32_t want = sum * 1000 + count + (i % 3 == 0 ? 0 : 500000000u);
    ASSERT_EQ(got[i], want) << "lane " << i << " of " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SimdExchangeTest,
                         ::testing::Combine(::testing::Values(32u, 70u, 1u, 1024u, 45u),
                                            ::testing::Values("in-order", "reversed", "random:3")));

}  // namespace
}  // namespace metalsim::testing
