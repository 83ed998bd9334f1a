// Issue 25 item 3: a threadgroup barrier reached after some threads of the threadgroup returned
// (MLX's gemv) runs to the end as on Apple GPUs, on fibers and in lane loops, with results equal
// to a scalar reference; barrier.exited is a portability warning that fails nothing unless
// --strict (or METALSIM_STRICT=1) is given. JSON and JUnit keep each report's severity.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace metalsim::cli::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kGemv = std::string(METALSIM_CASE_FILES_DIR) + "/gemv_early_return.json";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// M = 100 rows in threadgroups of 32: the fourth threadgroup keeps 4 threads and returns 28
// before both barriers; K = 129 makes five passes of the staging loop. Random W and x (seed 7).
const std::vector<std::string> kCase = {"--M=100", "--K=129", "--tg=32", "--seed", "7"};

std::vector<std::string> args(std::vector<std::string> head,
                              const std::vector<std::string>& tail = {}) {
  head.insert(head.end(), kCase.begin(), kCase.end());
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// The variable set for one scope (the in-process program reads it when its flags are made).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_.empty()) unsetenv(name_);
    else setenv(name_, old_.c_str(), 1);
  }

 private:
  const char* name_;
  std::string old_;
};

TEST(BarrierExited, RunsToTheEndInBothModesEqualToTheScalarReference) {
  for (const char* mode : {"fibers", "loops"}) {
    const CliRun r = cli(args({"run", kGemv}, {"--mode", mode, "--json"}));
    EXPECT_EQ(r.code, kExitOk) << mode << "\n" << r.out << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("status"), "pass") << j.dump(2);
    EXPECT_EQ(j.at("mode"), mode);
    EXPECT_EQ(j.at("strict"), false);
    // Every row written, each bit for bit the scalar reference's sum (tolerance 0).
    EXPECT_EQ(j.at("elements"), 100);
    EXPECT_EQ(j.at("unwritten"), 0);
    EXPECT_EQ(j.at("max_error"), 0.0) << j.dump(2);
    // Both barriers of the fourth threadgroup, as warnings.
    ASSERT_EQ(j.at("reports").size(), 2u) << j.dump(2);
    EXPECT_EQ(j.at("warnings"), 2);
    for (const json& rep : j.at("reports")) {
      EXPECT_EQ(rep.at("check"), "barrier.exited");
      EXPECT_EQ(rep.at("severity"), "warning");
      EXPECT_EQ(rep.at("message"),
                "threadgroup_barrier reached while 28 of 32 threads had already returned");
      EXPECT_TRUE(contains(rep.at("text"), "barrier.exited (warning): ")) << rep.dump(2);
      EXPECT_TRUE(contains(rep.at("text"), "gemv_early_return.metal:")) << rep.dump(2);
    }
  }
}

TEST(BarrierExited, TextSaysWarningAndThatItIsNoFailure) {
  const CliRun r = cli(args({"run", kGemv}));
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "status     pass")) << r.out;
  EXPECT_TRUE(contains(r.out, "reports    2 (2 warnings, not failures without --strict)")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "========= barrier.exited (warning): threadgroup_barrier reached "
                       "while 28 of 32 threads had already returned"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "returned threads: lanes 4..31")) << r.out;
}

TEST(BarrierExited, StrictMakesTheWarningAFailure) {
  for (const char* mode : {"fibers", "loops"}) {
    const CliRun r = cli(args({"run", kGemv}, {"--mode", mode, "--strict"}));
    EXPECT_EQ(r.code, kExitFailed) << mode << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.out,
                         "status     FAIL: barrier.exited (warning, a failure under "
                         "--strict): threadgroup_barrier reached while 28 of 32"))
        << r.out;
    EXPECT_TRUE(contains(r.out, ", strict\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "reproduce  metalsim run " + kGemv)) << r.out;
    EXPECT_TRUE(contains(r.out, " --strict\n")) << r.out;
  }
}

TEST(BarrierExited, MetalsimStrictInTheEnvironmentIsStrict) {
  {
    ScopedEnv strict("METALSIM_STRICT", "1");
    const CliRun r = cli(args({"run", kGemv}));
    EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  }
  {
    ScopedEnv lenient("METALSIM_STRICT", "0");
    const CliRun r = cli(args({"run", kGemv}));
    EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  }
}

// A case whose every thread stays has no warning (M a multiple of the threadgroup).
TEST(BarrierExited, NoThreadReturnedNoWarning) {
  const CliRun r = cli({"run", kGemv, "--M=64", "--K=64", "--tg=32", "--json", "--strict"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_TRUE(j.at("reports").empty()) << j.dump(2);
  EXPECT_EQ(j.at("warnings"), 0);
}

// metalsim check: the sweep on fibers and in lane loops, outputs compared byte for byte, every
// oracle (the equivalent threadgroup sizes rerun with their own warnings); passes, says which
// cases warned, and --strict fails exactly those.
TEST(BarrierExited, CheckPassesWithWarningsAndStrictFailsThem) {
  const CliRun r = cli({"check", kGemv, "--workers", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "warnings (the cases passed; --strict makes warnings failures):"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "warning  gemv_early_return(K=129,M=100,tg=32)")) << r.out;
  EXPECT_TRUE(contains(r.out, "4 passed, 0 failed (3 passed with warnings)")) << r.out;
  const CliRun strict = cli({"check", kGemv, "--workers", "2", "--strict"});
  EXPECT_EQ(strict.code, kExitFailed) << strict.out << strict.err;
  EXPECT_TRUE(contains(strict.out, "1 passed, 3 failed")) << strict.out;
}

TEST(BarrierExited, JunitCarriesTheSeverity) {
  const fs::path file = fs::temp_directory_path() / "metalsim_barrier_exited_junit.xml";
  const CliRun r = cli({"check", kGemv, "--workers", "2", "--junit", file.string()});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  std::ifstream in(file);
  std::stringstream xml;
  xml << in.rdbuf();
  const std::string text = xml.str();
  EXPECT_TRUE(contains(text, "failures=\"0\"")) << text;
  EXPECT_TRUE(contains(text,
                       "<property name=\"warning\" value=\"barrier.exited: "
                       "threadgroup_barrier reached while 28 of 32 threads had already "
                       "returned\"/>"))
      << text;
  EXPECT_TRUE(contains(text, "<system-out>passed with warnings (failures under --strict):"))
      << text;
  const fs::path strict_file = fs::temp_directory_path() / "metalsim_barrier_exited_strict.xml";
  const CliRun strict =
      cli({"check", kGemv, "--workers", "2", "--strict", "--junit", strict_file.string()});
  EXPECT_EQ(strict.code, kExitFailed);
  std::ifstream strict_in(strict_file);
  std::stringstream strict_xml;
  strict_xml << strict_in.rdbuf();
  EXPECT_TRUE(contains(strict_xml.str(), "failures=\"3\"")) << strict_xml.str();
  EXPECT_TRUE(contains(strict_xml.str(), "<property name=\"warning\"")) << strict_xml.str();
  fs::remove(file);
  fs::remove(strict_file);
}

TEST(BarrierExited, FuzzPassesWithWarningsAndStrictFails) {
  const CliRun r = cli({"fuzz", kGemv, "--cases", "6", "--seed", "1", "--workers", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.last_line(), "6 passed, 0 failed")) << r.out;
  const CliRun strict = cli({"fuzz", kGemv, "--cases", "6", "--seed", "1", "--workers", "2",
                             "--strict", "--shrink", "none"});
  EXPECT_EQ(strict.code, kExitFailed) << strict.out << strict.err;
}

}  // namespace
}  // namespace metalsim::cli::testing
