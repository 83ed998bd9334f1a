// The tsan preset as racecheck's second opinion (docs/checks.md): with the race check on, TSan's
// own text of a kernel's race is not printed unless METALSIM_TSAN_REPORTS=1 asks for it, and a
// memory fault inside a kernel, which TSan cannot recover from, ends the process with status 1
// after metalsim's report. (The race rows' lines are the planted table's, run in this build by
// planted_test.cpp.) Skipped in builds without ThreadSanitizer; CI runs them in the tsan stage of
// scripts/test.sh.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "planted_support.h"
#include "simt/checks/race_annotations.h"

namespace metalsim::testing::planted {
namespace {

#define SKIP_UNLESS_TSAN() \
  if (!checks::race::kEnabled) GTEST_SKIP() << "needs the tsan preset (ThreadSanitizer)"

TEST(TsanRacecheck, KernelRaceIsReportedWithoutTsansOwnText) {
  SKIP_UNLESS_TSAN();
  unsetenv("METALSIM_TSAN_REPORTS");
  Harness h;
  h.options().checks.race = true;  // without it, TSan's text is the only word on a race
  ::testing::internal::CaptureStderr();
  const Outcome o = dispatchers().at("planted_race_tg_write_write race.threadgroup")(h);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(o.text.find("race.threadgroup"), std::string::npos) << o.text;
  EXPECT_EQ(printed.find("WARNING: ThreadSanitizer"), std::string::npos) << printed;
}

TEST(TsanRacecheck, TsansOwnTextIsPrintedWhenAsked) {
  SKIP_UNLESS_TSAN();
  setenv("METALSIM_TSAN_REPORTS", "1", 1);
  Harness h;
  h.options().checks.race = true;
  ::testing::internal::CaptureStderr();
  const Outcome o = dispatchers().at("planted_race_tg_write_write race.threadgroup")(h);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  unsetenv("METALSIM_TSAN_REPORTS");
  EXPECT_NE(o.text.find("race.threadgroup"), std::string::npos) << o.text;
  EXPECT_NE(printed.find("WARNING: ThreadSanitizer"), std::string::npos) << printed;
}

// The fault's report, then the process's end with status 1: never status 0, which a CI job
// would take for a pass.
TEST(TsanRacecheckDeathTest, MemoryFaultEndsTheProcessWithStatus1AndItsReport) {
  SKIP_UNLESS_TSAN();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Harness h;
        dispatchers().at("planted_stack_recursion stack.overflow")(h);
      },
      ::testing::ExitedWithCode(1), "stack.overflow(.|\n)*status 1");
}

}  // namespace
}  // namespace metalsim::testing::planted
