// case_files/headers/: one kernel that includes every standard MSL header name, compiled at run
// time from its case file and by the build (linked into this test), checked against a reference
// written in plain C and built with metalsim_add_case_reference; and a case file's paths (its
// source, its reference library) resolved against its own folder whatever the working directory
// and however the case file is named (issue 25 item 8).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace metalsim::cli::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const fs::path kHeaderCases = METALSIM_HEADER_CASES_DIR;  // rbits.json, .metal, librbits_ref.so

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Runs the program with `dir` as the working directory, restoring the old one after.
CliRun cli_in(const fs::path& dir, std::vector<std::string> args) {
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  CliRun r = cli(std::move(args));
  fs::current_path(before);
  return r;
}

// A fresh copy of the header cases under a temporary folder: <root>/case/{rbits.json,
// rbits.metal, librbits_ref.so}, and <root>/elsewhere with decoys of the same names (a source
// that does not compile, a library that is no library), which a path resolved against the
// working directory instead of the case file's folder would find.
fs::path copied_cases(const std::string& name) {
  const fs::path root = fs::temp_directory_path() / ("metalsim_header_cases_" + name);
  fs::remove_all(root);
  fs::create_directories(root / "case");
  fs::create_directories(root / "elsewhere");
  for (const char* f : {"rbits.json", "rbits.metal", "librbits_ref.so"})
    fs::copy_file(kHeaderCases / f, root / "case" / f);
  std::ofstream(root / "elsewhere" / "rbits.metal") << "this is not MSL\n";
  std::ofstream(root / "elsewhere" / "librbits_ref.so") << "this is not a shared object\n";
  return root;
}

void expect_pass(const CliRun& r, const std::string& how) {
  EXPECT_EQ(r.code, kExitOk) << how << "\n" << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "status     pass")) << how << "\n" << r.out;
  EXPECT_TRUE(contains(r.out, "over 301 elements")) << how << "\n" << r.out;
}

// The case file names its source: every header compiles at run time, and the kernel's outputs
// (300 reversed words and the count of odd ones) match the C reference's.
TEST(HeaderCases, EveryStandardHeaderCompilesAtRunTimeAndTheKernelMatchesItsCReference) {
  expect_pass(cli({"run", (kHeaderCases / "rbits.json").string(), "--n=300"}), "run time");
  const CliRun r = cli({"check", (kHeaderCases / "rbits.json").string(), "--workers", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "4 passed, 0 failed")) << r.out;  // the sweep's 4 cases
}

// Without a source the kernel is the one the build compiled (cli_header_kernels, linked in).
TEST(HeaderCases, EveryStandardHeaderCompilesInTheBuildAndTheKernelMatchesItsCReference) {
  const fs::path root = copied_cases("linked");
  json j = json::parse(std::ifstream(root / "case" / "rbits.json"));
  j.erase("source");
  std::ofstream(root / "case" / "linked.json") << j.dump(2);
  expect_pass(cli({"run", (root / "case" / "linked.json").string(), "--n=300"}), "linked");
}

// `metalsim run rbits.json` from the case file's folder, `./rbits.json`, a path relative to
// another folder and an absolute one from a folder holding decoys of the same names: the source
// and "librbits_ref.so" are the case file's folder's every time.
TEST(HeaderCases, PathsResolveAgainstTheCaseFilesFolderWhateverTheWorkingDirectory) {
  const fs::path root = copied_cases("paths");
  const fs::path here = root / "case", elsewhere = root / "elsewhere";
  expect_pass(cli_in(here, {"run", "rbits.json", "--n=300"}), "rbits.json in its folder");
  expect_pass(cli_in(here, {"run", "./rbits.json", "--n=300"}), "./rbits.json in its folder");
  expect_pass(cli_in(root, {"run", "case/rbits.json", "--n=300"}), "case/rbits.json above it");
  expect_pass(cli_in(elsewhere, {"run", "../case/rbits.json", "--n=300"}),
              "../case/rbits.json beside the decoys");
  expect_pass(cli_in(elsewhere, {"run", (here / "rbits.json").string(), "--n=300"}),
              "an absolute path beside the decoys");
  // The decoys are what a wrong resolution would load: the copy in `elsewhere` fails on both.
  fs::copy_file(here / "rbits.json", elsewhere / "rbits.json");
  const CliRun decoy = cli_in(elsewhere, {"run", "rbits.json", "--n=300"});
  EXPECT_NE(decoy.code, kExitOk) << decoy.out << decoy.err;
}

}  // namespace
}  // namespace metalsim::cli::testing
