// MSL and host code as Apple's tools take them (issue 25 item 6), through a case file compiled
// at run time (case_files/zero_threadgroup.metal): a threadgroup argument bound with length 0
// runs when the kernel never touches it and is reported where a kernel reads or writes it; dot
// of two scalars (float and half) compiles and is their product.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace metalsim::cli::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kSource = std::string(METALSIM_CASE_FILES_DIR) + "/zero_threadgroup.metal";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A case file for `kernel` of zero_threadgroup.metal: 64 floats in, 64 out, threadgroups of
// 32, threadgroup(0) bound with `tg_bytes` bytes, as ggml's setThreadgroupMemoryLength(0, 0).
std::string case_file(const std::string& kernel, int tg_bytes, const json& reference) {
  json j = {{"source", kSource},
            {"kernel", kernel},
            {"threads", {64}},
            {"threadgroup", {32}},
            {"buffers",
             {{{"name", "in"}, {"index", 0}, {"type", "float"}, {"count", 64}, {"fill", "random"}},
              {{"name", "out"}, {"index", 1}, {"type", "float"}, {"count", 64}, {"output", true}}}},
            {"threadgroup_memory", {{{"index", 0}, {"bytes", tg_bytes}}}},
            {"tolerance", {{"abs", 0}, {"rel", 0}, {"why", "x * 2 is exact"}}}};
  if (!reference.is_null()) j["reference"] = reference;
  const fs::path dir = fs::temp_directory_path() / "metalsim_zero_threadgroup_test";
  fs::create_directories(dir);
  const fs::path path = dir / (kernel + ".json");
  std::ofstream(path) << j.dump(2);
  return path.string();
}

// Length 0 for an argument the kernel never touches: the dispatch runs (it was refused with
// api.unbound_buffer before) and the outputs, dot(x, 2.0f) + dot(half(x), half(0)), are x * 2.
TEST(ZeroThreadgroup, AnUntouchedArgumentOfLengthZeroRunsAndScalarDotIsTheProduct) {
  const std::string path = case_file("scale_ignoring_scratch", 0, {{"kernel", "scale_reference"}});
  const CliRun r = cli({"run", path, "--checks", "all"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "status     pass")) << r.out;
  EXPECT_TRUE(contains(r.out, "over 64 elements")) << r.out;
  EXPECT_FALSE(contains(r.out + r.err, "unbound")) << r.out << r.err;
}

// The line of zero_threadgroup.metal holding `marker` (1-based).
int metal_line(const std::string& marker) {
  std::ifstream in(kSource);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (contains(line, marker)) return n;
  }
  return -1;
}

// Length 0 for an argument the kernel writes and reads: the region is a guard page, so the
// first write is bounds.threadgroup, reported with the kernel's line and thread, with the
// default checks and with none (the fast variant, where the guard page itself faults).
TEST(ZeroThreadgroup, AnArgumentOfLengthZeroThatTheKernelTouchesIsReportedWhereItIsTouched) {
  for (const char* checks : {"sync,mem", "none"}) {
    const CliRun r =
        cli({"run", case_file("swap_through_scratch", 0, nullptr), "--checks", checks});
    EXPECT_NE(r.code, kExitOk) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "status     FAIL: bounds.threadgroup")) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "threadgroup memory bound with length 0")) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "in kernel 'swap_through_scratch' at " + kSource + ":" +
                                    std::to_string(metal_line("the zero-length write"))))
        << r.out << r.err;
    // Lane loops (mode auto) ran the threadgroup's lanes together: the report says which.
    EXPECT_TRUE(contains(r.out, "by one of lanes 0..31 (a lane loop runs them together"))
        << r.out << r.err;
    EXPECT_FALSE(contains(r.out, "conflicting with")) << r.out << r.err;
  }
  // With a length that covers the threadgroup the same kernel passes.
  const CliRun ok = cli({"run", case_file("swap_through_scratch", 32 * 4, nullptr)});
  EXPECT_EQ(ok.code, kExitOk) << ok.out << ok.err;
}

}  // namespace
}  // namespace metalsim::cli::testing
