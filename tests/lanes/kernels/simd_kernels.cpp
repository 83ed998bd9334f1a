// Simd functions: reductions, prefix sums, shuffles, ballots, a simdgroup barrier; in loops;
// under branches that depend on the lane (the active mask); after some lanes returned.
#include "lanes/kernels/kernel_abi.h"

namespace metalsim::lanes_test {
namespace {

// buffer(0): float in[grid]; buffer(1): float out[grid * 4]; buffer(2): ulong ballots[grid];
// buffer(3): float totals[groups]; threadgroup(0): float[32] (one per simdgroup).
void simd_functions(const BoundArgs& a, const Lane& l) {
  const float x = buffer<float>(a, 0)[l.gid];
  float* out = buffer<float>(a, 1) + uint64_t(l.gid) * 4;
  const float sum = simd::sum(x);
  const float before = simd::prefix_exclusive_sum(x);
  const float other = simd::shuffle(x, (l.simd_lane * 7 + 3) % 32);
  simd::barrier();
  const uint64_t positive = simd::ballot(x > 0.0f);
  out[0] = sum;
  out[1] = before;
  out[2] = other;
  out[3] = sum - before * other;
  buffer<uint64_t>(a, 2)[l.gid] = positive;
  float* per_simd = threadgroup<float>(a, 0);
  if (l.simd_lane == 0) per_simd[l.simd_group] = sum;
  barrier();
  if (l.tid == 0) {
    float total = 0.0f;
    for (uint32_t s = 0; s < (l.threads + 31) / 32; ++s) total += per_simd[s];
    buffer<float>(a, 3)[l.group] = total;
  }
}
LANES_TEST_KERNEL(simd_functions);

// buffer(0): float in[grid]; buffer(1): float out[grid]. Shuffle-down reduction in a loop.
void simd_shuffle_loop(const BoundArgs& a, const Lane& l) {
  float v = buffer<float>(a, 0)[l.gid];
  for (uint32_t offset = 16; offset > 0; offset >>= 1) v += simd::shuffle(v, l.simd_lane + offset);
  buffer<float>(a, 1)[l.gid] = v;
}
LANES_TEST_KERNEL(simd_shuffle_loop);

// buffer(0): float in[grid]; buffer(1): float out[grid * 3]; buffer(2): ulong ballots[grid].
// Collectives under a branch on each lane's own value: each arm's call combines only the lanes
// that took it (two call sites, two active masks).
void simd_active_mask(const BoundArgs& a, const Lane& l) {
  const float x = buffer<float>(a, 0)[l.gid];
  float* out = buffer<float>(a, 1) + uint64_t(l.gid) * 3;
  float s, p;
  uint64_t who;
  if (x > 0.0f) {
    s = simd::sum(x);
    p = simd::prefix_exclusive_sum(x * 2.0f);
    who = simd::ballot(x > 0.5f);
  } else {
    s = simd::sum(-x * 3.0f);
    who = simd::ballot(x < -0.5f);
    p = simd::shuffle(x, 31 - l.simd_lane);
  }
  out[0] = s;
  out[1] = p;
  out[2] = simd::sum(s + p);  // every lane again: the full mask
  buffer<uint64_t>(a, 2)[l.gid] = who;
}
LANES_TEST_KERNEL(simd_active_mask);

// buffer(0): float in[grid]; buffer(1): float out[grid]. Lanes whose input is negative return
// first; the rest sum among themselves.
void simd_after_return(const BoundArgs& a, const Lane& l) {
  const float x = buffer<float>(a, 0)[l.gid];
  float* out = buffer<float>(a, 1);
  if (x < -0.25f) {
    out[l.gid] = -1.0f;
    return;
  }
  out[l.gid] = simd::sum(x) + simd::prefix_exclusive_sum(x);
}
LANES_TEST_KERNEL(simd_after_return);

}  // namespace
}  // namespace metalsim::lanes_test
