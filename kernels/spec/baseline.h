#pragma once
// What the fast native baselines share (issue 10 item 8; docs/performance.md). A baseline is a
// family's math written for speed: float, loops the compiler vectorizes or Eigen, parallel over
// the OpenMP threads the kernel's dispatch uses (OMP_NUM_THREADS), reading the case's inputs and
// writing an output of its own. Benchmarks only: the references stay what kernels are checked
// against. Compiled with the kernels' target flags (F16C), so both sides use the same ISA.
#include <cstddef>
#include <vector>

namespace metalsim::spec::baseline {

using half_t = _Float16;

// half -> float and float -> half (round to nearest even), eight at a time where F16C is there.
void widen(const half_t* in, float* out, size_t n);
void narrow(const float* in, half_t* out, size_t n);

}  // namespace metalsim::spec::baseline
