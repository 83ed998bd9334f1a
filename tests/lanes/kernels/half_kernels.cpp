// half arithmetic (_Float16, rounded after every operation: -ffloat16-excess-precision=none)
// across barriers and in a simd reduction.
#include "lanes/kernels/kernel_abi.h"

namespace metalsim::lanes_test {
namespace {

using half = _Float16;

// buffer(0): half in[grid]; buffer(1): half out[grid * 2]; threadgroup(0): half[threads].
void half_math(const BoundArgs& a, const Lane& l) {
  const half x = buffer<half>(a, 0)[l.gid];
  half* shared = threadgroup<half>(a, 0);
  const half y = x * half(1.37f) + half(0.1f) * x * x;
  shared[l.tid] = y;
  barrier();
  const half neighbour = shared[(l.tid + 5) % l.threads];
  const half z = (y - neighbour) / (half(1.0f) + neighbour * neighbour);
  half* out = buffer<half>(a, 1) + uint64_t(l.gid) * 2;
  out[0] = z;
  out[1] = simd::sum(z * x);
}
LANES_TEST_KERNEL(half_math);

}  // namespace
}  // namespace metalsim::lanes_test
