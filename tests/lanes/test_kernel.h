#pragma once
// The kernels of the lane-loop tests: plain C++ written as metalsim-front would generate it from
// a .metal file (no MSL headers: they are being ported to clang now), compiled by clang++-19
// with the lane-loop pass (kernels/*.cpp), and run by the tests (compiled by the project's
// compiler) in lane loops and on fibers.
#include <cstdint>
#include <string_view>

#include "simt/abi/kernel.h"
#include "simt/engine/lane_loops.h"

namespace metalsim::lanes_test {

// One test kernel: the fibers' entry and the lane body the pass turned into a step.
struct TestKernel {
  const char* name;
  abi::KernelEntry entry;
  abi::LaneBody body;
};

// Registered by the kernels' translation units at static initialisation.
void add_test_kernel(const TestKernel& kernel);
// The kernel named `name`; throws when there is none.
const TestKernel& test_kernel(std::string_view name);

}  // namespace metalsim::lanes_test
