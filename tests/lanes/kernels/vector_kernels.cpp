// Kernels whose regions are plain element-wise arithmetic, between two barriers or with none:
// the lane loops of their steps must vectorize (the test reads this file's LLVM IR,
// vector_kernels.ll).
#include "lanes/kernels/kernel_abi.h"

namespace metalsim::lanes_test {
namespace {

// buffer(0): float x[grid]; buffer(1): float y[grid]; buffer(2): float out[grid];
// threadgroup(0): float[threads].
void axpy_exchange(const BoundArgs& a, const Lane& l) {
  const float* x = buffer<const float>(a, 0);
  const float* y = buffer<const float>(a, 1);
  float* shared = threadgroup<float>(a, 0);
  const float v = 2.5f * x[l.gid] + y[l.gid];
  shared[l.tid] = v;
  barrier();
  buffer<float>(a, 2)[l.gid] = v * 0.5f + shared[l.threads - 1 - l.tid];
}
LANES_TEST_KERNEL(axpy_exchange);

// buffer(0): float x[grid]; buffer(1): float out[grid]. No sync point: the step is one loop.
void scale(const BoundArgs& a, const Lane& l) {
  buffer<float>(a, 1)[l.gid] = buffer<const float>(a, 0)[l.gid] * 3.0f + 1.0f;
}
LANES_TEST_KERNEL(scale);

// buffer(0): half gate[grid]; buffer(1): half up[grid]; buffer(2): half out[grid]. swiglu's
// shape (halves in and out, a quotient in float): LLVM's cost model vectorizes its lane loop only
// 4 wide; a kernel without sync points asks for a full vector (vectorize_test.cpp).
void gated_product(const BoundArgs& a, const Lane& l) {
  const float g = float(buffer<const _Float16>(a, 0)[l.gid]);
  const float u = float(buffer<const _Float16>(a, 1)[l.gid]);
  buffer<_Float16>(a, 2)[l.gid] = _Float16(g / (1.0f + g * g) * u);
}
LANES_TEST_KERNEL(gated_product);

// buffer(0): float x[grid]; buffer(1): float out[grid]; buffer(2): uint limit. Lanes at or past
// `limit` return at once: the guard most kernels start with. In a one-dimensional threadgroup
// whose every lane passes it, the pass runs a copy of the loop without the branch, which
// vectorizes (simt/lanes/lane_guards.h).
void guarded_scale(const BoundArgs& a, const Lane& l) {
  if (l.gid >= buffer<const uint32_t>(a, 2)[0]) return;
  buffer<float>(a, 1)[l.gid] = buffer<const float>(a, 0)[l.gid] * 3.0f + 1.0f;
}
LANES_TEST_KERNEL(guarded_scale);

// The same with a guard on each lane's own input (the scan reads it ahead of the lanes).
void guarded_by_data(const BoundArgs& a, const Lane& l) {
  const float x = buffer<const float>(a, 0)[l.gid];
  if (x < buffer<const float>(a, 2)[0]) return;
  buffer<float>(a, 1)[l.gid] = x * 3.0f + 1.0f;
}
LANES_TEST_KERNEL(guarded_by_data);

// buffer(0): float x[grid]; buffer(1): float out[grid]. A kernel function too long for the
// inliner's threshold, called from both the fibers' entry and the lane body, so the optimizer
// leaves both calls; the pass inlines it into the body anyway (inline_kernel_calls), or the lane
// loop would stay a scalar call per lane.
// (clang-format does not settle on one layout for these macros.)
// clang-format off
#define LONG_STEP(k) y = y * (x + float(k) * 0.01f) + float(k) * 0.5f, y = y / (1.0f + y * y);
#define LONG_STEPS_8(k) LONG_STEP(k) LONG_STEP(k + 1) LONG_STEP(k + 2) LONG_STEP(k + 3) \
  LONG_STEP(k + 4) LONG_STEP(k + 5) LONG_STEP(k + 6) LONG_STEP(k + 7)
void long_kernel(const BoundArgs& a, const Lane& l) {
  const float x = buffer<const float>(a, 0)[l.gid];
  float y = x;
  LONG_STEPS_8(0) LONG_STEPS_8(8) LONG_STEPS_8(16) LONG_STEPS_8(24) LONG_STEPS_8(32)
  buffer<float>(a, 1)[l.gid] = y;
}
// clang-format on
#undef LONG_STEPS_8
#undef LONG_STEP
LANES_TEST_KERNEL(long_kernel);

// The rounds of the local_rows kernels: buffer(0): float x[grid]; buffer(2): uint rounds;
// threadgroup(0): float[threads]. Each round passes a value to the opposite lane through
// threadgroup memory, between two barriers, and hands it to `update` with the round's index.
template <class Update>
void exchange_rounds(const BoundArgs& a, const Lane& l, Update&& update) {
  float* shared = threadgroup<float>(a, 0);
  const uint32_t rounds = buffer<const uint32_t>(a, 2)[0];
  float v = buffer<const float>(a, 0)[l.gid];
  for (uint32_t r = 0; r < rounds; ++r) {
    shared[l.tid] = v;
    barrier();
    const float s = shared[l.threads - 1 - l.tid];
    update(s, r);
    v = s * 0.5f + 1.0f;
    barrier();
  }
}

// Row `i` of each lane's `count` rows of 4 floats in buffer(1): float out[grid * 4 * count].
void write_row(const BoundArgs& a, const Lane& l, const float (&row)[4], uint32_t i,
               uint32_t count) {
  float* out = buffer<float>(a, 1) + (uint64_t(l.gid) * count + i) * 4;
  for (uint32_t k = 0; k < 4; ++k) out[k] = row[k];
}

// Each lane's `acc` lives across the barriers and is indexed by the round: its slot is
// element-major (simt/lanes/element_major.h), so that the lane loop that updates it reads and
// writes consecutive lanes' elements contiguously, and vectorizes.
void local_rows(const BoundArgs& a, const Lane& l) {
  float acc[4] = {};
  exchange_rounds(a, l, [&](float s, uint32_t r) {
    for (uint32_t k = 0; k < 4; ++k) acc[(k + r) % 4] += s * float(k + 1);
  });
  write_row(a, l, acc, 0, 1);
}
LANES_TEST_KERNEL(local_rows);

// local_rows with the update in two nested loops of its own (buffer(3): uint m, their count): the
// inner loop's outer loop has no sync point, so neither runs across lanes, and each lane runs
// both for itself inside the region. There `acc` stays lane-major: a lane's whole array in one
// block, not one element per cache line (element_major.h).
void local_rows_nested(const BoundArgs& a, const Lane& l) {
  const uint32_t m = buffer<const uint32_t>(a, 3)[0];
  float acc[4] = {};
  exchange_rounds(a, l, [&](float s, uint32_t r) {
    for (uint32_t j = 0; j < m; ++j)
      for (uint32_t k = 0; k < m; ++k) acc[(j + k + r) % 4] += s * float(j + 2 * k + 1);
  });
  write_row(a, l, acc, 0, 1);
}
LANES_TEST_KERNEL(local_rows_nested);

// The same with two arrays, a pointer picking one each round: the pointer is not an access, so
// both slots stay lane-major (each lane's array in one block), and the results are the same.
void local_rows_picked(const BoundArgs& a, const Lane& l) {
  float even[4] = {}, odd[4] = {};
  exchange_rounds(a, l, [&](float s, uint32_t r) {
    float* row = r % 2 == 0 ? even : odd;
    for (uint32_t k = 0; k < 4; ++k) row[(k + r) % 4] += s * float(k + 1);
  });
  write_row(a, l, even, 0, 2);
  write_row(a, l, odd, 1, 2);
}
LANES_TEST_KERNEL(local_rows_picked);

}  // namespace
}  // namespace metalsim::lanes_test
