// Sync points that the rules report: a barrier in a branch that depends on the lane
// (barrier.divergent), a barrier after some lanes returned (barrier.exited). The tests find
// the lines of these barriers by the markers in their comments.
#include "lanes/kernels/kernel_abi.h"

namespace metalsim::lanes_test {

namespace {

// buffer(0): uint out[grid].
void divergent_barrier(const BoundArgs& a, const Lane& l) {
  if (l.tid < 40) {
    barrier();  // line: divergent low
  } else {
    barrier();  // line: divergent high
  }
  buffer<uint32_t>(a, 0)[l.gid] = l.tid;
}
LANES_TEST_KERNEL(divergent_barrier);

// buffer(0): uint out[grid]; threadgroup(0): uint[threads].
void barrier_after_return(const BoundArgs& a, const Lane& l) {
  if (l.tid >= 50) return;
  uint32_t* shared = threadgroup<uint32_t>(a, 0);
  shared[l.tid] = l.tid * 3 + 1;
  barrier();  // line: exited
  buffer<uint32_t>(a, 0)[l.gid] = shared[(l.tid + 1) % 50];
}
LANES_TEST_KERNEL(barrier_after_return);

}  // namespace

}  // namespace metalsim::lanes_test
