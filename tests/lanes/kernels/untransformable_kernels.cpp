// Kernels the pass cannot turn into lane loops (they still run on fibers, and the registry says
// why, naming the line): a sync point reached through an indirect call, through recursion, and
// through a function defined in another file; and one whose lane loops would be too large to
// compile in reasonable time. The lines are found by their markers.
#include "lanes/kernels/kernel_abi.h"

// Defined in another translation unit (test_kernel_registry.cpp): the pass cannot see into it.
void lanes_test_defined_in_another_file(float* out, uint32_t i);

namespace metalsim::lanes_test {

namespace {

void twice(float* v) {
  barrier();
  *v *= 2.0f;
}
void thrice(float* v) {
  barrier();
  *v *= 3.0f;
}
using Scale = void (*)(float*);
Scale const kScales[] = {&twice, &thrice};

// buffer(0): uint which; buffer(1): float out[grid].
void indirect_call(const BoundArgs& a, const Lane& l) {
  float v = float(l.tid);
  kScales[*buffer<const uint32_t>(a, 0) & 1](&v);  // line: indirect
  buffer<float>(a, 1)[l.gid] = v;
}
LANES_TEST_KERNEL(indirect_call);

// Not a tail call: the recursion stays a recursion.
float countdown(float v, uint32_t depth) {
  if (depth == 0) return v;
  barrier();
  return countdown(v + 1.0f, depth - 1) * 0.5f + 1.0f;
}

// buffer(0): uint depth; buffer(1): float out[grid].
void recursive_barrier(const BoundArgs& a, const Lane& l) {
  buffer<float>(a, 1)[l.gid] =
      countdown(float(l.tid), *buffer<const uint32_t>(a, 0));  // line: recursive
}
LANES_TEST_KERNEL(recursive_barrier);

// buffer(0): float out[grid].
void external_call(const BoundArgs& a, const Lane& l) {
  barrier();
  lanes_test_defined_in_another_file(buffer<float>(a, 0), l.gid);  // line: external
}
LANES_TEST_KERNEL(external_call);

// One stretch between barriers: a row of 16 reads of threadgroup memory, each at an index taken
// modulo the threadgroup's size, summed. 160 of them, unrolled, hold more instructions in their
// regions than the pass makes lane loops of (kMaxRegionInstructions, lane_loop_pass.cpp).
template <int N>
void stretches(float* shared, float& v, const Lane& l) {
  if constexpr (N > 0) {
    shared[l.tid] = v;
    barrier();
    float sum = 0.0f;
    for (uint32_t j = 0; j < 16; ++j) sum += shared[(l.tid + j * N) % l.threads] * float(j + 1);
    barrier();
    v = v * 0.5f + sum * (1.0f / 272.0f);  // the weights sum to 1: v stays in range
    stretches<N - 1>(shared, v, l);
  }
}

// buffer(0): float out[grid]; threadgroup(0): float shared[threads].
void too_large(const BoundArgs& a, const Lane& l) {
  float v = float(l.tid);
  stretches<160>(threadgroup<float>(a, 0), v, l);
  buffer<float>(a, 0)[l.gid] = v;
}
LANES_TEST_KERNEL(too_large);  // line: too_large

}  // namespace
}  // namespace metalsim::lanes_test
