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

// buffer(0): uint out[grid]; buffer(1): uint which. Every lane writes its slot; lane 3 of
// threadgroup `which` then stores through a null pointer (kernel.fault). The tests run one worker,
// whose share runs every threadgroup on one fiber (LaneLoopRunner::run_share).
void fault_in_one_group(const BoundArgs& a, const Lane& l) {
  buffer<uint32_t>(a, 0)[l.gid] = l.gid + 1;
  if (l.group == buffer<const uint32_t>(a, 1)[0] && l.tid == 3) {
    volatile uint32_t* nowhere = nullptr;
    *nowhere = 1;  // line: null store
  }
}
LANES_TEST_KERNEL(fault_in_one_group);

}  // namespace

}  // namespace metalsim::lanes_test
