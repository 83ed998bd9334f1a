// metalsim run: by name with --param=value, by case id, and its errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace metalsim::cli::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Run, CaseIdFillsMissingParametersWithTheirFallback) {
  const CliRun r = cli({"run", "cli_planted_tile(n=63)"});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "case       cli_planted_tile(n=63,rows=1)")) << r.out;
  EXPECT_TRUE(contains(r.out, "never written")) << r.out;
  EXPECT_TRUE(contains(r.out, "time       kernel ")) << r.out;
}

TEST(Run, NamedParametersInBothSpellings) {
  const CliRun r = cli({"run", "cli_planted_tile", "--n=64", "--rows", "3", "--schedule",
                        "random:5", "--workers", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "cli_planted_tile(n=64,rows=3)")) << r.out;
  EXPECT_TRUE(contains(r.out, "schedule random:5")) << r.out;
}

TEST(Run, TheReproOfAFailureReproducesIt) {
  const CliRun r =
      cli({"run", "cli_planted_tile(n=127,rows=2)", "--seed", "4", "--checks", "sync,init,mem"});
  EXPECT_EQ(r.code, kExitFailed);
  EXPECT_TRUE(contains(r.out,
                       "reproduce  metalsim run 'cli_planted_tile(n=127,rows=2)' --seed 4 "
                       "--schedule in-order --checks sync,init,mem"))
      << r.out;
}

TEST(Run, Json) {
  const CliRun r = cli({"run", "cli_scale", "--n", "65", "--json"});
  EXPECT_EQ(r.code, kExitOk);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("id"), "cli_scale(n=65,rows=1)");
  EXPECT_EQ(j.at("status"), "pass");
  EXPECT_EQ(j.at("elements"), 65);
}

TEST(Run, Errors) {
  EXPECT_EQ(cli({"run", "no_such_kernel"}).code, kExitUsage);
  EXPECT_EQ(cli({"run", "cli_scale", "--m=3"}).code, kExitUsage);
  EXPECT_EQ(cli({"run", "cli_scale", "--n=x"}).code, kExitUsage);
  EXPECT_EQ(cli({"run", "cli_scale(n=3"}).code, kExitUsage);
  const CliRun invalid = cli({"run", "cli_scale", "--n=0"});
  EXPECT_EQ(invalid.code, kExitUsage);
  EXPECT_TRUE(contains(invalid.err, "invalid case cli_scale(n=0,rows=1)")) << invalid.err;
}

// metalsim model takes the run flags every case-running command takes: a malformed value is a
// usage error naming the flag, before any weight is generated.
TEST(Model, ParsesTheSharedRunFlags) {
  const CliRun checks = cli({"model", "--shape", "small", "--checks", "bogus"});
  EXPECT_EQ(checks.code, kExitUsage);
  EXPECT_TRUE(contains(checks.err, "--checks")) << checks.err;
  const CliRun mode = cli({"model", "--shape", "small", "--mode", "sideways"});
  EXPECT_EQ(mode.code, kExitUsage);
  EXPECT_TRUE(contains(mode.err, "--mode")) << mode.err;
  EXPECT_EQ(checks.out.find("weights"), std::string::npos) << checks.out;
}

}  // namespace
}  // namespace metalsim::cli::testing
