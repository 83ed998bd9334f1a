// The registry of the lane-loop test kernels (test_kernel.h), and the function the
// "external call" kernel calls, defined here where the pass cannot see it.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "lanes/test_kernel.h"

void lanes_test_defined_in_another_file(float* out, uint32_t i) { out[i] = float(i) + 0.5f; }

namespace metalsim::lanes_test {
namespace {

std::vector<TestKernel>& kernels() {
  static std::vector<TestKernel> list;
  return list;
}

}  // namespace

void add_test_kernel(const TestKernel& kernel) { kernels().push_back(kernel); }

const TestKernel& test_kernel(std::string_view name) {
  for (const TestKernel& k : kernels())
    if (name == k.name) return k;
  throw std::invalid_argument("no lane-loop test kernel named " + std::string(name));
}

}  // namespace metalsim::lanes_test
