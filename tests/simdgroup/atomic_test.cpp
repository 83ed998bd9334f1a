// metal_atomic under contention: many lanes of many threadgroups, run in parallel on every core
// (workers = 0), on device memory and on threadgroup memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include <metal_stdlib>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

using namespace metal;

static_assert(sizeof(atomic_int) == 4 && sizeof(atomic_uint) == 4 && sizeof(atomic_float) == 4 &&
              sizeof(atomic_bool) == 4 && alignof(atomic_uint) == 4);
static_assert(std::is_trivially_copyable_v<atomic_int> &&
              std::is_trivially_copyable_v<atomic_uint> &&
              std::is_trivially_copyable_v<atomic_float> &&
              std::is_trivially_copyable_v<atomic_bool>);

constexpr uint32_t kGroups = 64, kThreads = 256, kLanes = kGroups * kThreads;

uint32_t global_id(const LaneCursor& lane) {
  return lane.value(Builtin::thread_position_in_grid).x;
}
int32_t hashed(uint32_t i) { return int32_t((i * 2654435761u) >> 3) - (1 << 27); }

// counters: [0] fetch_add, [1] fetch_max (int), [2] fetch_min (uint), [3] fetch_or, [4] fetch_xor,
// [5] CAS-loop increment, [6] fetch_sub, [7] fetch_and, [8] float fetch_add, [9] exchange slot,
// [10] bool flag
void contention_body(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = global_id(lane);
  auto* c = buffer<atomic_uint>(a, 0);
  auto* old_add = buffer<uint32_t>(a, 1);
  auto* old_exchange = buffer<uint32_t>(a, 2);
  auto* flag_seen = buffer<uint32_t>(a, 3);
  old_add[i] = atomic_fetch_add_explicit(&c[0], 1u, memory_order_relaxed);
  atomic_fetch_max_explicit(reinterpret_cast<atomic_int*>(&c[1]), hashed(i), memory_order_relaxed);
  atomic_fetch_min_explicit(&c[2], uint32_t(hashed(i)) ^ 0x5A5A5A5Au, memory_order_relaxed);
  atomic_fetch_or_explicit(&c[3], 1u << (i % 32), memory_order_relaxed);
  atomic_fetch_xor_explicit(&c[4], i * 0x9E3779B9u, memory_order_relaxed);
  // An increment written as a compare-exchange loop, as kernels do for custom operations.
  uint32_t expected = atomic_load_explicit(&c[5], memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(&c[5], &expected, expected + 1,
                                                memory_order_relaxed, memory_order_relaxed)) {
  }
  atomic_fetch_sub_explicit(&c[6], 3u, memory_order_relaxed);
  atomic_fetch_and_explicit(&c[7], ~(1u << (i % 29)) | (i % 3 == 0 ? 0u : 0xFFFFFFFFu),
                            memory_order_relaxed);
  atomic_fetch_add_explicit(reinterpret_cast<atomic_float*>(&c[8]), 0.5f, memory_order_relaxed);
  old_exchange[i] = atomic_exchange_explicit(&c[9], i + 1, memory_order_relaxed);
  flag_seen[i] =
      atomic_exchange_explicit(reinterpret_cast<atomic_bool*>(&c[10]), true, memory_order_relaxed);
}
HandKernel contention_kernel("atomic_contention",
                             {device_arg("c", 0, 4), device_arg("old_add", 1, 4),
                              device_arg("old_exchange", 2, 4), device_arg("flag", 3, 4)},
                             &lane_loop<contention_body>);

class AtomicTest : public ::testing::TestWithParam<const char*> {};

TEST_P(AtomicTest, ContentionAcrossLanesAndThreadgroups) {
  Harness h;
  ASSERT_TRUE(metalsim::SchedulePolicy::parse(GetParam(), h.options().schedule));
  h.options().workers = 0;
  std::vector<uint32_t> init(11, 0);
  init[1] = uint32_t(INT32_MIN);
  init[2] = 0xFFFFFFFFu;
  init[6] = 3 * kLanes + 100;
  init[7] = 0xFFFFFFFFu;
  float zero = 0.0f;
  std::memcpy(&init[8], &zero, 4);
  auto counters = h.buffer(init);
  auto old_add = h.buffer(size_t(kLanes) * 4), old_exchange = h.buffer(size_t(kLanes) * 4),
       flags = h.buffer(size_t(kLanes) * 4);
  auto* cb = h.run("atomic_contention",
                   [&](auto* e) {
                     e->setBuffer(counters.get(), 0, 0);
                     e->setBuffer(old_add.get(), 0, 1);
                     e->setBuffer(old_exchange.get(), 0, 2);
                     e->setBuffer(flags.get(), 0, 3);
                   },
                   {kGroups, 1, 1}, {kThreads, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  const auto* c = static_cast<const uint32_t*>(counters->contents());
  EXPECT_EQ(c[0], kLanes);
  int32_t max = INT32_MIN;
  uint32_t min = 0xFFFFFFFFu, xr = 0, andv = 0xFFFFFFFFu;
  for (uint32_t i = 0; i < kLanes; ++i) {
    max = std::max(max, hashed(i));
    min = std::min(min, uint32_t(hashed(i)) ^ 0x5A5A5A5Au);
    xr ^= i * 0x9E3779B9u;
    andv &= ~(1u << (i % 29)) | (i % 3 == 0 ? 0u : 0xFFFFFFFFu);
  }
  EXPECT_EQ(int32_t(c[1]), max);
  EXPECT_EQ(c[2], min);
  EXPECT_EQ(c[3], 0xFFFFFFFFu);
  EXPECT_EQ(c[4], xr);
  EXPECT_EQ(c[5], kLanes);
  EXPECT_EQ(c[6], 100u);
  EXPECT_EQ(c[7], andv);
  float fsum;
  std::memcpy(&fsum, &c[8], 4);
  EXPECT_EQ(fsum, 0.5f * float(kLanes));
  // Each fetch_add returned a distinct old value: a permutation of 0 .. kLanes-1.
  std::vector<uint32_t> olds(static_cast<const uint32_t*>(old_add->contents()),
                             static_cast<const uint32_t*>(old_add->contents()) + kLanes);
  std::sort(olds.begin(), olds.end());
  for (uint32_t i = 0; i < kLanes; ++i) ASSERT_EQ(olds[i], i);
  // The exchanges form one chain: the old values plus the final value are 0 and every i + 1.
  std::vector<uint32_t> chain(static_cast<const uint32_t*>(old_exchange->contents()),
                              static_cast<const uint32_t*>(old_exchange->contents()) + kLanes);
  chain.push_back(c[9]);
  std::sort(chain.begin(), chain.end());
  for (uint32_t i = 0; i <= kLanes; ++i) ASSERT_EQ(chain[i], i);
  // Exactly one lane saw the flag false.
  const auto* seen = static_cast<const uint32_t*>(flags->contents());
  EXPECT_EQ(std::count(seen, seen + kLanes, 0u), 1);
  EXPECT_EQ(c[10], 1u);
}

// A threadgroup-memory counter per threadgroup and a float accumulated with a CAS loop on device
// memory.
void threadgroup_body(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t t = lane.value(Builtin::thread_index_in_threadgroup).x;
  const uint32_t g = lane.value(Builtin::threadgroup_position_in_grid).x;
  auto* local = threadgroup<atomic_int>(a, 0);
  auto* out = buffer<int>(a, 0);
  auto* fsum = buffer<atomic_float>(a, 1);
  if (t == 0) {
    atomic_store_explicit(&local[0], 0, memory_order_relaxed);
    atomic_store_explicit(&local[1], -1, memory_order_relaxed);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  atomic_fetch_add_explicit(&local[0], int(t) + 1, memory_order_relaxed);
  atomic_fetch_max_explicit(&local[1], int((t * 37) % 101), memory_order_relaxed);
  // float add as a CAS loop: x = x + 0.25
  float expected = atomic_load_explicit(fsum, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(fsum, &expected, expected + 0.25f,
                                                memory_order_relaxed, memory_order_relaxed)) {
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (t == 0) {
    out[g * 2] = atomic_load_explicit(&local[0], memory_order_relaxed);
    out[g * 2 + 1] = atomic_load_explicit(&local[1], memory_order_relaxed);
  }
}
HandKernel threadgroup_kernel("atomic_threadgroup",
                              {device_arg("out", 0, 4), device_arg("fsum", 1, 4),
                               threadgroup_arg("local", 0, 4)},
                              &lane_loop<threadgroup_body>);

TEST_P(AtomicTest, ThreadgroupMemoryAndFloatCompareExchange) {
  Harness h;
  ASSERT_TRUE(metalsim::SchedulePolicy::parse(GetParam(), h.options().schedule));
  h.options().workers = 0;
  const uint32_t groups = 64, n = 200;
  auto out = h.buffer(std::vector<int>(groups * 2, 0));
  auto fsum = h.buffer(std::vector<float>{0.0f});
  auto* cb = h.run("atomic_threadgroup",
                   [&](auto* e) {
                     e->setBuffer(out.get(), 0, 0);
                     e->setBuffer(fsum.get(), 0, 1);
                     e->setThreadgroupMemoryLength(16, 0);
                   },
                   {groups, 1, 1}, {n, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  int want_max = 0;
  for (uint32_t t = 0; t < n; ++t) want_max = std::max(want_max, int((t * 37) % 101));
  const auto* got = static_cast<const int*>(out->contents());
  for (uint32_t g = 0; g < groups; ++g) {
    ASSERT_EQ(got[g * 2], int(n * (n + 1) / 2)) << "threadgroup " << g;
    ASSERT_EQ(got[g * 2 + 1], want_max) << "threadgroup " << g;
  }
  EXPECT_EQ(*static_cast<const float*>(fsum->contents()), 0.25f * float(groups * n));
}

INSTANTIATE_TEST_SUITE_P(Schedules, AtomicTest,
                         ::testing::Values("in-order", "reversed", "random:11"));

}  // namespace
}  // namespace metalsim::testing
