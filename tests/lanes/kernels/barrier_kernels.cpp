// Threadgroup barriers: in straight code, in loops, under branches every lane takes alike; tree
// reductions in threadgroup memory, through a [[threadgroup(0)]] argument and through a
// kernel-scope threadgroup variable; function constants; atomics between barriers; a private
// array; cleanups (landing pads) across a barrier.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "lanes/kernels/kernel_abi.h"
#include "simt/engine/threadgroup_memory.h"

namespace metalsim::lanes_test {
namespace {

// buffer(0): float in[grid]; buffer(1): float out[grid * 2]; threadgroup(0): float[threads].
void rotate(const BoundArgs& a, const Lane& l) {
  const float* in = buffer<float>(a, 0);
  float* out = buffer<float>(a, 1) + uint64_t(l.gid) * 2;
  float* shared = threadgroup<float>(a, 0);
  const uint32_t n = l.threads, i = l.tid;
  const float mine = in[l.gid] * 1.5f + 0.25f;
  shared[i] = mine;
  barrier();
  const float right = shared[(i + 1) % n];
  barrier();
  shared[i] = right - mine;
  barrier();
  out[0] = right;
  out[1] = shared[(i + n - 1) % n] * mine;
}
LANES_TEST_KERNEL(rotate);

// buffer(0): float in[grid]; buffer(1): float out[grid]; buffer(2): uint rounds;
// threadgroup(0): float[threads]. A barrier in a loop whose trip count every lane shares.
void barrier_in_loop(const BoundArgs& a, const Lane& l) {
  const float* in = buffer<float>(a, 0);
  const uint32_t rounds = *buffer<const uint32_t>(a, 2);
  float* shared = threadgroup<float>(a, 0);
  float acc = in[l.gid];
  for (uint32_t k = 0; k < rounds; ++k) {
    shared[l.tid] = acc;
    barrier();
    acc = acc * 0.5f + shared[(l.tid + k + 1) % l.threads];
    barrier();
  }
  buffer<float>(a, 1)[l.gid] = acc;
}
LANES_TEST_KERNEL(barrier_in_loop);

// barrier_in_loop with buffer(2) in the constant address space: `rounds` is read again after
// each barrier instead of being stored per lane.
void barrier_in_loop_constant(const BoundArgs& a, const Lane& l) { barrier_in_loop(a, l); }
LANES_TEST_KERNEL_WITH_CONSTANT(barrier_in_loop_constant, 2);

// buffer(0): float in[grid]; buffer(1): float out[grid]; threadgroup(0): float[threads];
// function constant 0: int mode (unset: 0). A barrier in each arm of a branch on it.
void uniform_branch(const BoundArgs& a, const Lane& l) {
  const void* c = engine::function_constant(0);
  int mode = 0;
  if (c != nullptr) std::memcpy(&mode, c, sizeof mode);
  float* shared = threadgroup<float>(a, 0);
  const float x = buffer<float>(a, 0)[l.gid];
  float r;
  if (mode == 1) {
    shared[l.tid] = x * x;
    barrier();
    r = shared[l.threads - 1 - l.tid] + x;
  } else {
    shared[l.tid] = x - 1.0f;
    barrier();
    r = shared[(l.tid + 3) % l.threads] * x;
  }
  buffer<float>(a, 1)[l.gid] = r;
}
LANES_TEST_KERNEL(uniform_branch);

// buffer(0): float in[grid]; buffer(1): float out[groups]; threadgroup(0): float[threads],
// threads a power of two. The classic halving tree.
void tree_reduce(const BoundArgs& a, const Lane& l) {
  float* shared = threadgroup<float>(a, 0);
  shared[l.tid] = buffer<float>(a, 0)[l.gid];
  barrier();
  for (uint32_t s = l.threads / 2; s > 0; s >>= 1) {
    if (l.tid < s) shared[l.tid] += shared[l.tid + s];
    barrier();
  }
  if (l.tid == 0) buffer<float>(a, 1)[l.group] = shared[0];
}
LANES_TEST_KERNEL(tree_reduce);

// The same tree in a kernel-scope `threadgroup float partial[1024]`, as the front emits one;
// buffer(0): float in[grid]; buffer(1): float out[groups].
void tree_reduce_static(const BoundArgs& a, const Lane& l) {
  using partial_t = float[1024];
  static engine::ThreadgroupVariableSite partial_site{sizeof(partial_t), alignof(partial_t),
                                                      "partial", __FILE__, __LINE__};
  partial_t& partial = *static_cast<partial_t*>(engine::threadgroup_variable(partial_site));
  partial[l.tid] = buffer<float>(a, 0)[l.gid];
  barrier();
  for (uint32_t s = l.threads / 2; s > 0; s >>= 1) {
    if (l.tid < s) partial[l.tid] = partial[l.tid] + partial[l.tid + s];
    barrier();
  }
  if (l.tid == 0) buffer<float>(a, 1)[l.group] = partial[0];
}
LANES_TEST_KERNEL(tree_reduce_static);

// buffer(0): float in[grid]; buffer(1): float out[grid]; threadgroup(0): float[threads].
// A private array indexed at run time (it stays in memory: per-lane frame storage), and a
// pointer into it, live across barriers.
void private_array(const BoundArgs& a, const Lane& l) {
  float acc[8];
  float* third = &acc[2];
  const float x = buffer<float>(a, 0)[l.gid];
  for (int k = 0; k < 8; ++k) acc[k] = x * float(k + 1);
  float* shared = threadgroup<float>(a, 0);
  shared[l.tid] = acc[l.tid % 8];
  barrier();
  *third += shared[(l.tid + 1) % l.threads];
  barrier();
  float sum = 0.0f;
  for (uint32_t k = 0; k < 8; ++k) sum = sum * 0.75f + acc[(k + l.tid) % 8];
  buffer<float>(a, 1)[l.gid] = sum;
}
LANES_TEST_KERNEL(private_array);

// buffer(0): float in[grid]; buffer(1): float out[grid * 2]; threadgroup(0): float[threads].
// A thread pointer to the lane's output element or into its private array, chosen per lane and
// live across barriers, written between stores to the output and to the array: the frame's
// alias scopes (simt/lanes/frame_scopes.h) must leave an access that may be either unscoped.
void pointer_choice(const BoundArgs& a, const Lane& l) {
  float* out = buffer<float>(a, 1) + uint64_t(l.gid) * 2;
  float local[4];
  const float x = buffer<float>(a, 0)[l.gid];
  for (int k = 0; k < 4; ++k) local[k] = x + float(k);
  float* p = l.tid % 3 == 0 ? &out[0] : &local[l.tid % 4];
  out[0] = x * 0.5f;
  float* shared = threadgroup<float>(a, 0);
  shared[l.tid] = local[1];
  barrier();
  *p += shared[(l.tid + 1) % l.threads];
  out[0] += 0.25f;
  local[l.tid % 4] *= 2.0f;
  barrier();
  out[1] = *p + local[(l.tid + 1) % 4] + local[l.tid % 4] + out[0];
}
LANES_TEST_KERNEL(pointer_choice);

// buffer(0): float in[grid]; buffer(1): uint out[grid]; threadgroup(0): uint[16].
// A histogram of the threadgroup's inputs by atomic increments in threadgroup memory (atomics
// between two barriers: the order of the increments does not show in the counts).
void atomic_histogram(const BoundArgs& a, const Lane& l) {
  uint32_t* bins = threadgroup<uint32_t>(a, 0);
  for (uint32_t b = l.tid; b < 16; b += l.threads) bins[b] = 0;
  barrier();
  const float x = buffer<float>(a, 0)[l.gid];
  const uint32_t bin = uint32_t(std::min(15.0f, std::max(0.0f, (x + 2.0f) * 4.0f)));
  __atomic_fetch_add(&bins[bin], 1u, __ATOMIC_RELAXED);
  barrier();
  buffer<uint32_t>(a, 1)[l.gid] = bins[l.tid % 16] * 100 + bin;
}
LANES_TEST_KERNEL(atomic_histogram);

// A local whose destructor runs after the barrier, and calls that may throw on both sides of it:
// clang emits invokes and landing pads, which the step keeps (it unwinds as the body does).
struct AddOnExit {
  float* target;
  float amount;
  ~AddOnExit() { *target += amount; }
};
[[gnu::noinline]] float checked(float x) {
  if (!(x == x)) throw std::domain_error("a NaN input");
  return x;
}

// buffer(0): float in[grid]; buffer(1): float out[grid]; threadgroup(0): float[threads].
void cleanup_across_barrier(const BoundArgs& a, const Lane& l) {
  float* out = buffer<float>(a, 1) + l.gid;
  *out = 0.0f;
  AddOnExit on_exit{out, 0.5f};
  float* shared = threadgroup<float>(a, 0);
  shared[l.tid] = checked(buffer<float>(a, 0)[l.gid]);
  barrier();
  *out += checked(shared[(l.tid + 1) % l.threads]) * 2.0f;
}
LANES_TEST_KERNEL(cleanup_across_barrier);

}  // namespace
}  // namespace metalsim::lanes_test
