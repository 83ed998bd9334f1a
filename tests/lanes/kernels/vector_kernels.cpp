// A kernel whose regions are plain element-wise arithmetic between two barriers: the lane loops
// of its step must vectorize (the test reads this file's LLVM IR, vector_kernels.ll).
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

}  // namespace
}  // namespace metalsim::lanes_test
