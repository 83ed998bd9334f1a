// Kernels with per-lane loops, the GPU way (`for (i = tid; i < n; i += threads)`) and with a
// trip count every lane shares: the pass runs them across lanes (simt/lanes/across_lanes.h).
// across_test.cpp runs them in both modes against scalar references; the structure test reads
// which loops the pass took (kernels/strided_kernels.summary.txt).
//
// Every kernel reads its row length `n` from buffer(1) (uint) and works on row `group` of x:
// x[group * n .. group * n + n), so n below, equal to and above the threadgroup's size, and not a
// multiple of it, give lanes with one iteration more than others, and lanes with none.
#include "lanes/kernels/kernel_abi.h"

namespace metalsim::lanes_test {
namespace {

uint32_t row_length(const BoundArgs& a) { return buffer<const uint32_t>(a, 1)[0]; }
const float* row_of(const BoundArgs& a, const Lane& l) {
  return buffer<const float>(a, 0) + uint64_t(l.group) * row_length(a);
}

// The value the next lane (wrapping) passes, through threadgroup memory between two barriers.
float from_next_lane(float* shared, float v, const Lane& l) {
  shared[l.tid] = v;
  barrier();
  const float next = shared[(l.tid + 1) % l.threads];
  barrier();
  return next;
}

// buffer(0): float x[groups * n]; buffer(2): float out[grid]. Each lane's strided sum.
void strided_sum(const BoundArgs& a, const Lane& l) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  float acc = 0.0f;
  for (uint32_t i = l.tid; i < n; i += l.threads) acc += row[i] * row[i];
  buffer<float>(a, 2)[l.gid] = acc;
}
LANES_TEST_KERNEL(strided_sum);

// buffer(0): float x[groups * n]; buffer(2): float out[grid]. strided_sum whose lanes then all
// write their threadgroup's first slot too, a write-write race on purpose: in fibers' order the
// last lane's sum wins. Another lane's store may meet that store in the loop's region, so the loop
// stays per lane (simt/lanes/region_order.h): in rounds, the lanes without an iteration would
// write before the others, and lane loops would give other bytes than fibers.
void strided_sum_racing(const BoundArgs& a, const Lane& l) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  float acc = 0.0f;
  for (uint32_t i = l.tid; i < n; i += l.threads) acc += row[i];
  float* out = buffer<float>(a, 2);
  out[l.gid] = acc;
  out[l.gid - l.tid] = acc;
}
LANES_TEST_KERNEL(strided_sum_racing);

// buffer(0): float x[groups * n]; buffer(2): float y[groups * n]; buffer(3): float out[grid].
// softmax's shape without exp: a strided max, a reduction through threadgroup memory read by
// every lane (a loop whose trip count every lane shares), a strided sum of squares, the same
// reduction, and a strided store. threadgroup(0): float[threads].
float reduce_max_all(float* shared, float v, const Lane& l) {
  shared[l.tid] = v;
  barrier();
  float m = shared[0];
  for (uint32_t j = 1; j < l.threads; ++j) m = m > shared[j] ? m : shared[j];
  barrier();
  return m;
}
float reduce_sum_all(float* shared, float v, const Lane& l) {
  shared[l.tid] = v;
  barrier();
  float s = 0.0f;
  for (uint32_t j = 0; j < l.threads; ++j) s += shared[j];
  barrier();
  return s;
}
void strided_normalize(const BoundArgs& a, const Lane& l) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  float* out = buffer<float>(a, 2) + uint64_t(l.group) * n;
  float* shared = threadgroup<float>(a, 0);
  float local_max = -1e30f;
  for (uint32_t i = l.tid; i < n; i += l.threads)
    local_max = local_max > row[i] ? local_max : row[i];
  const float m = reduce_max_all(shared, local_max, l);
  float local_sum = 0.0f;
  for (uint32_t i = l.tid; i < n; i += l.threads) local_sum += (row[i] - m) * (row[i] - m);
  const float s = reduce_sum_all(shared, local_sum, l) + 1.0f;
  for (uint32_t i = l.tid; i < n; i += l.threads) out[i] = (row[i] - m) / s;
  buffer<float>(a, 3)[l.gid] = local_sum;
}
LANES_TEST_KERNEL(strided_normalize);

// buffer(0): float x[groups * n]; buffer(2): float out[grid]. A strided loop whose lanes leave
// early, at data that differs per lane (a break): its trip count is unknown, the lanes keep it.
void strided_break(const BoundArgs& a, const Lane& l) {
  float acc = 0.0f;
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  for (uint32_t i = l.tid; i < n; i += l.threads) {
    if (row[i] > 1.5f) break;
    acc += row[i];
  }
  buffer<float>(a, 2)[l.gid] = acc;
}
LANES_TEST_KERNEL(strided_break);

// buffer(0): float x[groups * n]; buffer(2): float out[grid]. A loop with two exits, at most
// n / 16 + 1 rounds and only while the lane's index is in the row (flash attention's `k < 4 &&
// lane + 32 * k < d`, with a bound the optimizer cannot unroll): ScalarEvolution counts the first
// and not the second (the index may wrap), the pass counts that one from its test, and the loop
// runs across lanes for the least of the two.
void strided_two_exits(const BoundArgs& a, const Lane& l) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  const uint32_t rounds = n / 16 + 1;
  float acc = 0.0f;
  for (uint32_t k = 0; k < rounds && l.tid + l.threads * k < n; ++k)
    acc += row[l.tid + l.threads * k] * float(k + 1);
  buffer<float>(a, 2)[l.gid] = acc;
}
LANES_TEST_KERNEL(strided_two_exits);

// buffer(0): float x[groups * n]; buffer(2): float out[grid]. A strided loop with a barrier in
// it (every lane runs ceil(n / threads) rounds): a sync point inside, so the lanes keep it.
// threadgroup(0): float[threads].
void strided_with_barrier(const BoundArgs& a, const Lane& l) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  float* shared = threadgroup<float>(a, 0);
  float acc = 0.0f;
  for (uint32_t base = 0; base < n; base += l.threads) {
    const uint32_t i = base + l.tid;
    acc += from_next_lane(shared, i < n ? row[i] : 0.0f, l);
  }
  buffer<float>(a, 2)[l.gid] = acc;
}
LANES_TEST_KERNEL(strided_with_barrier);

// buffer(0): float x[groups * n]; buffer(2): float out[grid * 2]. Nested loops without a sync
// point: a strided loop over blocks of 7 with a loop over each block inside (the optimizer
// unrolls that one), and three strided loops starting at tid, tid + 1 and tid + 2.
void strided_nested(const BoundArgs& a, const Lane& l) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  const uint32_t blocks = n / 7;
  float acc = 0.0f;
  for (uint32_t b = l.tid; b < blocks; b += l.threads) {
    float block = 0.0f;
    for (uint32_t k = 0; k < 7; ++k) block += row[b * 7 + k] * float(k + 1);
    acc += block;
  }
  float tail = 0.0f;
  for (uint32_t r = 0; r < 3; ++r)
    for (uint32_t i = l.tid + r; i < n; i += l.threads) tail += row[i];
  buffer<float>(a, 2)[l.gid * 2] = acc;
  buffer<float>(a, 2)[l.gid * 2 + 1] = tail;
}
LANES_TEST_KERNEL(strided_nested);

// buffer(0): float x[groups * n]; buffer(2): float out[grid]. A strided loop inside an outer
// loop that meets a barrier every other pass: each pass of the inner loop runs across lanes; on
// the passes without a barrier a lane comes back to the inner loop's first iteration in the
// region of its yield, and stops there again. threadgroup(0): float[threads].
void strided_in_outer_loop(const BoundArgs& a, const Lane& l) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  float* shared = threadgroup<float>(a, 0);
  const uint32_t passes = n % 3 + 2;
  float acc = 0.0f;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    float part = 0.0f;
    for (uint32_t i = l.tid + pass; i < n; i += l.threads) part += row[i] * float(pass + 1);
    acc = acc * 0.5f + part;
    if (pass % 2 == 1) acc += from_next_lane(shared, acc, l);
  }
  buffer<float>(a, 2)[l.gid] = acc;
}
LANES_TEST_KERNEL(strided_in_outer_loop);

// buffer(0): float x[groups * n]; buffer(2): float out[grid]. A loop every lane runs n times
// (as a head dimension), reading the same elements in every lane, and a strided loop that counts
// down, with a signed variable.
void uniform_and_down(const BoundArgs& a, const Lane& l) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  float acc = 0.0f;
  for (uint32_t k = 0; k < n; ++k) acc += row[k] * float(l.tid + 1);
  for (int32_t i = int32_t(n) - 1 - int32_t(l.tid); i >= 0; i -= int32_t(l.threads))
    acc = acc * 0.5f + row[i];
  buffer<float>(a, 2)[l.gid] = acc;
}
LANES_TEST_KERNEL(uniform_and_down);

// buffer(0): float x[groups * n]; buffer(2): float out[groups * n]; buffer(3): float out[grid].
// Strided stores to device memory, by `stride` from the lane's index: the row doubled into out,
// then (after a barrier) out squared plus the lane's index, in place.
void double_then_square(const BoundArgs& a, const Lane& l, uint32_t stride) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  float* out = buffer<float>(a, 2) + uint64_t(l.group) * n;
  for (uint32_t i = l.tid; i < n; i += stride) out[i] = row[i] * 2.0f;
  barrier();
  for (uint32_t i = l.tid; i < n; i += stride) out[i] = out[i] * out[i] + float(l.tid);
  buffer<float>(a, 3)[l.gid] = float(l.tid);
}

// double_then_square by the threadgroup's size: each lane reads back only its own elements, the
// test at run time finds the lanes' indices apart, and both loops run across lanes.
void strided_in_place(const BoundArgs& a, const Lane& l) { double_then_square(a, l, l.threads); }
LANES_TEST_KERNEL(strided_in_place);

// buffer(0): float x[groups * n]; buffer(2): float out[groups * n]; buffer(3): float out[grid].
// Two elements per iteration through a 64-bit index (out[2 * i] and out[2 * i + 1]: one index,
// two offsets 4 bytes apart in 8), and an odd row's last element by lane 0 after a barrier.
void strided_pairs(const BoundArgs& a, const Lane& l) {
  const uint32_t n = row_length(a);
  const float* row = row_of(a, l);
  float* out = buffer<float>(a, 2) + uint64_t(l.group) * n;
  for (uint32_t i = l.tid; i < n / 2; i += l.threads) {
    const uint64_t j = 2 * uint64_t(i);
    out[j] = row[j] + row[j + 1];
    out[j + 1] = row[j] - row[j + 1];
  }
  barrier();
  if (l.tid == 0 && n % 2 == 1) out[n - 1] = row[n - 1];
  buffer<float>(a, 3)[l.gid] = float(l.tid);
}
LANES_TEST_KERNEL(strided_pairs);

// double_then_square by half the threadgroup: lanes tid and tid + threads / 2 update the same
// elements in place, a race on purpose (softmax as ADR-003 wrote it, at 512 threads). The pass
// takes both loops, but the test at run time finds the indices not apart (but for a threadgroup
// of one lane): the lanes run their iterations together, in fibers' order.
void strided_half_stride_racing(const BoundArgs& a, const Lane& l) {
  double_then_square(a, l, l.threads / 2 > 0 ? l.threads / 2 : 1);
}
LANES_TEST_KERNEL(strided_half_stride_racing);

}  // namespace
}  // namespace metalsim::lanes_test
