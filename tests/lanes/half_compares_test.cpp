// Half compares in float (simt/lanes/half_compares.h): the kernel half_compares
// (kernels/half_kernels.cpp) over every half bit pattern, in both modes, against the same eight
// comparisons made here in float on the exactly widened values; and the optimised IR holds no
// compare of halves (the x86 backend would compare those one element at a time).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "lanes/mode_runner.h"

namespace metalsim::lanes_test {
namespace {

using half = _Float16;

half half_of_bits(uint16_t bits) {
  half h;
  std::memcpy(&h, &bits, sizeof h);
  return h;
}

// The kernel's eight bits, computed in float by this file's compiler (no pass, no vector code).
uint8_t reference_bits(half x, half y) {
  const float xf = float(x), yf = float(y);
  uint8_t bits = 0;
  bits |= uint8_t(xf < -104.0f) << 0;
  bits |= uint8_t(xf > 89.0f) << 1;
  bits |= uint8_t(xf != xf) << 2;
  bits |= uint8_t(xf <= 0.5f) << 3;
  bits |= uint8_t(!(xf >= -0.25f)) << 4;
  bits |= uint8_t(xf == yf) << 5;
  bits |= uint8_t(xf < yf) << 6;
  bits |= uint8_t(!(xf > yf)) << 7;
  return bits;
}

TEST(HalfCompares, EveryHalfComparesAsItsFloat) {
  constexpr uint32_t kThreads = 256, kGroups = 65536 / kThreads;
  std::vector<half> x(65536), y(65536);
  for (uint32_t i = 0; i < 65536; ++i) x[i] = half_of_bits(uint16_t(i));
  // y: x itself in a quarter of the lanes (equal, both NaN), its neighbour in bits in another
  // (the nearest halves, +0 against -0), random patterns in the rest.
  std::mt19937 random(29);
  for (uint32_t i = 0; i < 65536; ++i) {
    const uint32_t kind = i % 4;
    const uint16_t bits = kind == 0   ? uint16_t(i)
                          : kind == 1 ? uint16_t(i ^ 1u)
                          : kind == 2 ? uint16_t(i ^ 0x8000u)
                                      : uint16_t(random());
    y[i] = half_of_bits(bits);
  }
  Launch launch;
  launch.kernel = "half_compares";
  launch.geometry = abi::DispatchGeometry::for_threadgroups({kGroups, 1, 1}, {kThreads, 1, 1});
  launch.buffers = {bytes_of(x), bytes_of(y), Bytes(65536, std::byte{0xAA})};
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
    const Outcome o = run_in_mode(launch, mode);
    ASSERT_TRUE(o.ok);
    const std::vector<uint8_t> got = values_of<uint8_t>(o.buffers[2]);
    for (uint32_t i = 0; i < 65536; ++i)
      ASSERT_EQ(got[i], reference_bits(x[i], y[i]))
          << "x bits " << i << ", y bits " << std::hex << *reinterpret_cast<const uint16_t*>(&y[i])
          << (mode == metalsim::ExecutionMode::loops ? " in lane loops" : " on fibers");
  }
}

TEST(HalfCompares, TheOptimisedKernelComparesNoHalves) {
  std::ifstream in(std::string(LANES_OUT_DIR) + "/half_kernels.ll");
  ASSERT_TRUE(in.good());
  bool vector_float_compare = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("= fcmp ") == std::string::npos) continue;
    EXPECT_EQ(line.find(" half"), std::string::npos) << "a compare of halves: " << line;
    vector_float_compare |= line.find(" x float>") != std::string::npos;
  }
  EXPECT_TRUE(vector_float_compare) << "half_compares' lane loop was not vectorized";
}

}  // namespace
}  // namespace metalsim::lanes_test
