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

}  // namespace
}  // namespace metalsim::lanes_test
