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

// buffer(0): half x[grid]; buffer(1): half y[grid]; buffer(2): uint8_t out[grid]. Eight
// comparisons of halves, the way kernels write them (a half read into a float and compared with
// a float constant, or two halves compared), which the optimizer turns into compares of halves:
// each sets one bit of the lane's byte. Element-wise, so its lane loop vectorizes; the pass that
// compares halves in float (simt/lanes/half_compares.h) must keep every answer.
void half_compares(const BoundArgs& a, const Lane& l) {
  const half x = buffer<const half>(a, 0)[l.gid];
  const half y = buffer<const half>(a, 1)[l.gid];
  const float xf = float(x);
  uint8_t bits = 0;
  bits |= uint8_t(xf < -104.0f) << 0;
  bits |= uint8_t(xf > 89.0f) << 1;
  bits |= uint8_t(xf != xf) << 2;  // NaN
  bits |= uint8_t(xf <= 0.5f) << 3;
  bits |= uint8_t(!(xf >= -0.25f)) << 4;  // unordered or less
  bits |= uint8_t(x == y) << 5;
  bits |= uint8_t(x < y) << 6;
  bits |= uint8_t(!(x > y)) << 7;  // unordered, less or equal
  buffer<uint8_t>(a, 2)[l.gid] = bits;
}
LANES_TEST_KERNEL(half_compares);

}  // namespace
}  // namespace metalsim::lanes_test
