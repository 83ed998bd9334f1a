// What the pass built for small kernels, read from its summary (-metalsim-lanes-summary): the
// sync points it found, where each continuation's loop can stop, and what it stores per lane.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace metalsim::lanes_test {
namespace {

// The summary lines of the body of kernel `name` in kernels/<file>.cpp (without "body ...").
std::vector<std::string> summary_of(const std::string& file, const std::string& name) {
  std::ifstream in(std::string(LANES_OUT_DIR) + "/" + file + ".summary.txt");
  EXPECT_TRUE(in.good()) << "no summary for " << file;
  std::vector<std::string> lines;
  bool mine = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("body ", 0) == 0) {
      mine = line.find("::" + name + "(") != std::string::npos;
      continue;
    }
    if (mine) lines.push_back(line.substr(2));
  }
  EXPECT_FALSE(lines.empty()) << "no body for " << name << " in " << file << ".summary.txt";
  return lines;
}

std::vector<std::string> starting_with(const std::vector<std::string>& lines,
                                       const std::string& prefix) {
  std::vector<std::string> out;
  for (const std::string& l : lines)
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  return out;
}

// "region 1: 8 blocks -> sync 2, return" -> "region 1 -> sync 2, return" (block counts depend on
// the optimiser; where a lane can stop does not).
std::vector<std::string> regions(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (std::string l : starting_with(lines, "region ")) {
    const size_t colon = l.find(':'), arrow = l.find("->");
    out.push_back(l.substr(0, colon) + " " + l.substr(arrow));
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::ostringstream s;
  for (const std::string& x : v) s << x << "\n";
  return s.str();
}

TEST(LaneLoopStructure, StraightBarriersMakeOneLoopPerStretch) {
  const auto lines = summary_of("barrier_kernels", "rotate");
  EXPECT_EQ(starting_with(lines, "sync ").size(), 3u) << joined(lines);
  for (const std::string& s : starting_with(lines, "sync ")) {
    EXPECT_NE(s.find("threadgroup_barrier at "), std::string::npos) << s;
    EXPECT_NE(s.find("barrier_kernels.cpp:"), std::string::npos) << s;
  }
  EXPECT_EQ(regions(lines), (std::vector<std::string>{"region 0 -> sync 1", "region 1 -> sync 2",
                                                      "region 2 -> sync 3", "region 3 -> return"}))
      << joined(lines);
}

TEST(LaneLoopStructure, ABarrierInALoopResumesIntoTheLoop) {
  // Two barriers in a loop: the loop's test runs at the start (rounds may be 0) and after the
  // second barrier, which goes round to the first again or leaves.
  const auto lines = summary_of("barrier_kernels", "barrier_in_loop");
  EXPECT_EQ(regions(lines),
            (std::vector<std::string>{"region 0 -> sync 1, return", "region 1 -> sync 2",
                                      "region 2 -> sync 1, return"}))
      << joined(lines);
  // The accumulator crosses both barriers: it is stored per lane.
  EXPECT_FALSE(starting_with(lines, "slot ").empty()) << joined(lines);
}

TEST(LaneLoopStructure, AValueOfConstantMemoryIsReadAgainAfterABarrier) {
  // The loop's bound, read from buffer(2): in device memory it is stored per lane across the
  // barriers; in the constant address space it is read again, once per step.
  const auto device = summary_of("barrier_kernels", "barrier_in_loop");
  const auto constant = summary_of("barrier_kernels", "barrier_in_loop_constant");
  EXPECT_EQ(starting_with(constant, "slot ").size() + 1, starting_with(device, "slot ").size())
      << joined(device) << "\n"
      << joined(constant);
  EXPECT_EQ(regions(constant), regions(device)) << joined(constant);
}

TEST(LaneLoopStructure, ABarrierInEachArmOfAUniformBranch) {
  const auto lines = summary_of("barrier_kernels", "uniform_branch");
  EXPECT_EQ(regions(lines), (std::vector<std::string>{"region 0 -> sync 1, sync 2",
                                                      "region 1 -> return", "region 2 -> return"}))
      << joined(lines);
}

TEST(LaneLoopStructure, TreeReductionLoopsAtItsInnerBarrier) {
  const auto lines = summary_of("barrier_kernels", "tree_reduce");
  EXPECT_EQ(regions(lines),
            (std::vector<std::string>{"region 0 -> sync 1", "region 1 -> sync 2, return",
                                      "region 2 -> sync 2, return"}))
      << joined(lines);
}

TEST(LaneLoopStructure, EverySimdFunctionIsASyncPoint) {
  const auto lines = summary_of("simd_kernels", "simd_functions");
  // The pass's own yields aside (the loop of lane 0 at the end runs across lanes: across_test).
  std::vector<std::string> syncs;
  for (const std::string& s : starting_with(lines, "sync "))
    if (s.find(" yield at ") == std::string::npos) syncs.push_back(s);
  ASSERT_EQ(syncs.size(), 6u) << joined(lines);
  const char* kinds[] = {"simd_collective",   "simd_collective", "simd_collective",
                         "simdgroup_barrier", "simd_collective", "threadgroup_barrier"};
  for (size_t i = 0; i < syncs.size(); ++i)
    EXPECT_NE(syncs[i].find(kinds[i]), std::string::npos) << syncs[i];
  ASSERT_GE(regions(lines).size(), 7u) << joined(lines);
  EXPECT_EQ(regions(lines)[6].rfind("region 6 -> ", 0), 0u) << joined(lines);
  EXPECT_NE(regions(lines)[6].find("return"), std::string::npos) << joined(lines);
}

TEST(LaneLoopStructure, UniformValuesAreNotStoredPerLane) {
  // Buffer pointers and the threadgroup's size cross the barrier; they are computed once per
  // step (uniform), the lane's index again per loop: only the one value stays in the frame.
  const auto lines = summary_of("vector_kernels", "axpy_exchange");
  EXPECT_EQ(starting_with(lines, "slot ").size(), 1u) << joined(lines);
  EXPECT_NE(lines[0].find(" 4 frame bytes per lane"), std::string::npos) << joined(lines);
}

TEST(LaneLoopStructure, ALocalArrayIndexedAcrossBarriersIsElementMajor) {
  // local_rows' `acc` (float[4], indexed by the round) is one array across the lanes per element
  // (simt/lanes/element_major.h); local_rows_picked's two arrays, reached through a pointer
  // that picks one, stay lane-major, and so does local_rows_nested's, updated in loops that run
  // lane by lane.
  const auto rows = starting_with(summary_of("vector_kernels", "local_rows"), "slot ");
  const auto arrays = [](const std::vector<std::string>& slots, bool element_major) {
    size_t n = 0;
    for (const std::string& s : slots)
      n += s.find(": 16 bytes at offset") != std::string::npos &&
           (s.find(", element-major (4-byte elements)") != std::string::npos) == element_major;
    return n;
  };
  EXPECT_EQ(arrays(rows, true), 1u) << joined(rows);
  const auto picked = starting_with(summary_of("vector_kernels", "local_rows_picked"), "slot ");
  EXPECT_GE(arrays(picked, false), 2u) << joined(picked);  // (and the lambda's two pointers)
  EXPECT_EQ(arrays(picked, true), 0u) << joined(picked);
  // Updated in loops that run lane by lane inside a region: lane-major.
  const auto nested = starting_with(summary_of("vector_kernels", "local_rows_nested"), "slot ");
  EXPECT_EQ(arrays(nested, false), 1u) << joined(nested);
  EXPECT_EQ(arrays(nested, true), 0u) << joined(nested);
}

TEST(LaneLoopStructure, UntransformableKernelsAreListedWithTheirReason) {
  const auto lines = summary_of("untransformable_kernels", "indirect_call");
  ASSERT_EQ(lines.size(), 1u) << joined(lines);
  EXPECT_NE(lines[0].find("untransformable_kernels.cpp:"), std::string::npos) << lines[0];
}

TEST(LaneLoopStructure, ABodyTooLargeToCompileQuicklyIsLeftToTheFibers) {
  const auto lines = summary_of("untransformable_kernels", "too_large");
  ASSERT_EQ(lines.size(), 1u) << joined(lines);
  EXPECT_NE(lines[0].find("its lane loops would be too large to compile"), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find(" estimated, over 10000)"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace metalsim::lanes_test
