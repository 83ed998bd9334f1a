// simd_* functions (simt/include/metal_simdgroup) against a scalar model: random inputs from a
// fixed seed, lanes that return early and two call sites, partial last simdgroups, several
// threadgroups, under the in-order, reversed and random schedules.
#include "simdgroup/simd_model.h"

namespace metalsim::testing {
namespace {

using namespace simd_model;

#define SG_KERNEL(G, T, name)                                                      \
  HandKernel kernel_##name(                                                        \
      #name,                                                                       \
      {device_arg("x", 0, sizeof(T), true), device_arg("f", 1, sizeof(T), true),   \
       device_arg("out", 2, sizeof(T)), device_arg("p", 3, sizeof(Params), true)}, \
      &lane_loop<ops_body<G, T>>);
SG_KERNEL(32, float, simd_ops_float)
SG_KERNEL(32, metal::half, simd_ops_half)
SG_KERNEL(32, int, simd_ops_int)
SG_KERNEL(32, metal::uint, simd_ops_uint)
SG_KERNEL(32, metal::float4, simd_ops_float4)
SG_KERNEL(32, metal::int2, simd_ops_int2)
SG_KERNEL(32, metal::half4, simd_ops_half4)

struct Shape {
  uint32_t threads, groups;
};

class SimdFunctionTest : public ::testing::TestWithParam<std::tuple<Shape, const char*>> {};

TEST_P(SimdFunctionTest, Float) {
  auto [s, sched] = GetParam();
  check_all_ops<32, float>("simd_ops_float", s.threads, s.groups, sched);
}
TEST_P(SimdFunctionTest, Half) {
  auto [s, sched] = GetParam();
  check_all_ops<32, metal::half>("simd_ops_half", s.threads, s.groups, sched);
}
TEST_P(SimdFunctionTest, Int) {
  auto [s, sched] = GetParam();
  check_all_ops<32, int>("simd_ops_int", s.threads, s.groups, sched);
}
TEST_P(SimdFunctionTest, UintAndVotes) {
  auto [s, sched] = GetParam();
  check_all_ops<32, metal::uint>("simd_ops_uint", s.threads, s.groups, sched);
}
TEST_P(SimdFunctionTest, Float4) {
  auto [s, sched] = GetParam();
  check_all_ops<32, metal::float4>("simd_ops_float4", s.threads, s.groups, sched);
}
TEST_P(SimdFunctionTest, Int2) {
  auto [s, sched] = GetParam();
  check_all_ops<32, metal::int2>("simd_ops_int2", s.threads, s.groups, sched);
}
TEST_P(SimdFunctionTest, Half4) {
  auto [s, sched] = GetParam();
  check_all_ops<32, metal::half4>("simd_ops_half4", s.threads, s.groups, sched);
}

INSTANTIATE_TEST_SUITE_P(Shapes, SimdFunctionTest,
                         ::testing::Combine(::testing::Values(Shape{70, 2}, Shape{32, 1},
                                                              Shape{1, 1}, Shape{96, 3}),
                                            ::testing::Values("in-order", "reversed", "random:5")));

// ------------------------------ simd_vote, barriers with mem_flags

TEST(SimdVote, ConversionsAndPredicates) {
  using metal::simd_vote;
  constexpr simd_vote v(0xF0ul);
  static_assert(static_cast<simd_vote::vote_t>(v) == 0xF0ul);
  static_assert(v.any() && !v.all());
  static_assert(simd_vote(0xFFFFFFFFul).all());
  static_assert(!simd_vote().any());
  static_assert(sizeof(simd_vote::vote_t) == 8);
  constexpr metal::quad_vote q(0xF);
  static_assert(q.all() && q.any());
  static_assert(metal::quad_vote(0x3).any() && !metal::quad_vote(0x3).all());
}

static_assert((metal::mem_flags::mem_device | metal::mem_flags::mem_threadgroup) !=
              metal::mem_flags::mem_none);

// A lane writes threadgroup memory, then threadgroup_barrier(mem_flags) and
// simdgroup_barrier(mem_flags) order it before other lanes read.
void barrier_body(const BoundArgs& a, const LaneCursor& lane) {
  using namespace metal;
  const uint32_t n = lane.value(Builtin::threads_per_threadgroup).x;
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  auto* shared = threadgroup<uint32_t>(a, 0);
  auto* out = buffer<uint32_t>(a, 0);
  shared[i] = i * 3 + 1;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  const uint32_t left = shared[(i + n - 1) % n];
  simdgroup_barrier(mem_flags::mem_none);
  const uint32_t sg_first = i / 32 * 32;
  shared[i] = left + 1;
  simdgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);
  out[i] = shared[sg_first] * 100000u + left;
}
HandKernel barrier_kernel("simd_barrier_flags",
                          {device_arg("out", 0, 4), threadgroup_arg("s", 0, 4)},
                          &lane_loop<barrier_body>);

TEST(SimdBarrier, MemFlagsBarriersOrderThreadgroupMemory) {
  for (const char* sched : {"in-order", "reversed", "random:9"}) {
    Harness h;
    ASSERT_TRUE(metalsim::SchedulePolicy::parse(sched, h.options().schedule));
    const uint32_t n = 70;
    auto out = h.buffer(std::vector<uint32_t>(n, 0));
    auto* cb = h.run("simd_barrier_flags",
                     [&](auto* e) {
                       e->setBuffer(out.get(), 0, 0);
                       e->setThreadgroupMemoryLength(n * 4 + 8, 0);
                     },
                     {1, 1, 1}, {n, 1, 1});
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
    const auto* got = static_cast<const uint32_t*>(out->contents());
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t left = ((i + n - 1) % n) * 3 + 1;
      const uint32_t f = i / 32 * 32;
      const uint32_t first_left = ((f + n - 1) % n) * 3 + 1;
      ASSERT_EQ(got[i], (first_left + 1) * 100000u + left) << sched << " lane " << i;
    }
  }
}

}  // namespace
}  // namespace metalsim::testing
