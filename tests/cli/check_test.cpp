// metalsim check: exit statuses, the table, known bugs, filters, and the race check.
#include <gtest/gtest.h>

#include "cli_test_util.h"

namespace metalsim::cli::testing {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Check, PassingSpecExitsZero) {
  const CliRun r = cli({"check", "cli_scale"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_EQ(r.last_line(), "4 passed, 0 failed");
  EXPECT_TRUE(contains(r.out, "cli_scale")) << r.out;
  EXPECT_TRUE(r.err.empty()) << "no progress bar when stderr is not a terminal: " << r.err;
}

TEST(Check, PlantedBugFailsWithItsRepro) {
  const CliRun r = cli({"check", "cli_planted_tile"});
  EXPECT_EQ(r.code, kExitFailed) << r.out;
  EXPECT_EQ(r.last_line(), "3 passed, 1 failed");
  EXPECT_TRUE(contains(r.out, "FAIL  cli_planted_tile(n=63,rows=1)")) << r.out;
  EXPECT_TRUE(contains(r.out, "reproduce: metalsim run 'cli_planted_tile(n=63,rows=1)'")) << r.out;
}

TEST(Check, KnownBugReproducedCountsAsPassed) {
  const CliRun r = cli({"check", "cli_planted_tile_as_documented"});
  EXPECT_EQ(r.code, kExitOk) << r.out;
  EXPECT_EQ(r.last_line(), "2 passed, 0 failed");
  EXPECT_TRUE(contains(r.out, "known bugs reproduced")) << r.out;
}

TEST(Check, KnownBugNotReproducedFails) {
  // n = 64 does not hit the documented bug.
  const CliRun r = cli({"check", "cli_planted_tile_as_documented(n=64)"});
  EXPECT_EQ(r.code, kExitFailed) << r.out;
  EXPECT_TRUE(contains(r.out, "known bug NOT reproduced")) << r.out;
}

TEST(Check, CaseIdAndGlobFilters) {
  const CliRun one = cli({"check", "cli_planted_tile(n=65,rows=2)"});
  EXPECT_EQ(one.code, kExitOk) << one.out;
  EXPECT_EQ(one.last_line(), "1 passed, 0 failed");
  const CliRun glob = cli({"check", "cli_sca*"});
  EXPECT_EQ(glob.last_line(), "4 passed, 0 failed");
  const CliRun family = cli({"check", "cli_test", "--checks", "none"});
  EXPECT_EQ(family.code, kExitFailed);  // the planted bug is in the family
}

TEST(Check, UsageErrors) {
  EXPECT_EQ(cli({"check", "no_such_kernel"}).code, kExitUsage);
  EXPECT_EQ(cli({"check", "cli_scale", "--checks", "speed"}).code, kExitUsage);
  EXPECT_EQ(cli({"check", "cli_scale", "--schedule", "sideways"}).code, kExitUsage);
  EXPECT_EQ(cli({"frobnicate"}).code, kExitUsage);
  EXPECT_EQ(cli({"--help"}).code, kExitOk);
}

TEST(Check, RaceCheckReportsAScheduleDependentResultWithItsSeed) {
  const CliRun quiet = cli({"check", "cli_racy"});
  EXPECT_EQ(quiet.code, kExitOk) << "under in-order alone the race is invisible: " << quiet.out;
  const CliRun r = cli({"check", "cli_racy", "--checks", "sync,init,mem,race", "--seed", "9"});
  EXPECT_EQ(r.code, kExitFailed) << r.out;
  EXPECT_TRUE(contains(r.out, "race.schedule")) << r.out;
  EXPECT_TRUE(contains(r.out, "reversed")) << r.out;
  // The outputs are compared byte for byte: y[0] holds the index of the lane that ran last
  // (63 in order, 0 reversed).
  EXPECT_TRUE(contains(r.out, "output 'y' differs from byte ")) << r.out;
  const CliRun scale = cli({"check", "cli_scale", "--checks", "all"});
  EXPECT_EQ(scale.code, kExitOk) << "a race-free kernel is the same under every schedule: " << scale.out;
}

}  // namespace
}  // namespace metalsim::cli::testing
