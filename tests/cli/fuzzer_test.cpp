// The fuzzer finds the planted off-by-one (wrong only when n % 64 == 63) from a fixed seed
// within a bounded number of cases, shrinks it to the boundary n = 63, and the corpus replays.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "host/cli/fuzzer.h"
#include "kernels/spec/memory_budget.h"

namespace metalsim::cli::testing {
namespace {

namespace fs = std::filesystem;

const KernelSpec& planted() {
  const KernelSpec* s = spec::SpecRegistry::find("cli_planted_tile");
  EXPECT_NE(s, nullptr);
  return *s;
}

TEST(Fuzzer, GeneratedCasesAreValidAndDeterministic) {
  const CaseGenerator a(planted(), 7), b(planted(), 7), c(planted(), 8);
  bool differs = false;
  for (size_t k = 0; k < 50; ++k) {
    const FuzzCase x = a.generate(k), y = b.generate(k);
    EXPECT_EQ(x.params, y.params) << k;
    EXPECT_EQ(x.seed, y.seed) << k;
    EXPECT_EQ(x.schedule.str(), y.schedule.str()) << k;
    std::string why;
    EXPECT_TRUE(planted().valid(x.params, &why)) << why;
    differs = differs || x.params != c.generate(k).params;
  }
  EXPECT_TRUE(differs) << "the seed changes the cases";
}

TEST(Fuzzer, CasesFavourBoundaries) {
  const CaseGenerator gen(planted(), 1);
  size_t near_boundary = 0;
  for (size_t k = 0; k < 200; ++k) {
    const int64_t n = gen.generate(k).params.at("n");
    near_boundary += n == 1 || n == 4096 || n % 64 == 0 || n % 64 == 1 || n % 64 == 63;
  }
  EXPECT_GT(near_boundary, 100u);
}

TEST(Fuzzer, BoundaryValuesIncludeNeighboursOneAndMax) {
  const auto v = boundary_values({"n", 1, 4096, {}, {64}, 64, ""});
  EXPECT_EQ(v, (std::vector<int64_t>{1, 63, 64, 65, 4096}));
  EXPECT_EQ(boundary_values({"tg", 32, 256, {32, 64, 256}, {}, 64, ""}),
            (std::vector<int64_t>{32, 64, 256}));
}

TEST(Fuzzer, FindsThePlantedOffByOneAndShrinksItToTheBoundary) {
  constexpr size_t kBudget = 40;
  const CaseGenerator gen(planted(), 1);
  size_t found_at = kBudget;
  CaseOutcome failing;
  for (size_t k = 0; k < kBudget && found_at == kBudget; ++k) {
    const FuzzCase fc = gen.generate(k);
    metalsim::ExecutionOptions options;
    options.schedule = fc.schedule;
    options.checks = metalsim::CheckSet::all();
    options.checks.race = false;
    failing = run_case({&planted(), fc.params, fc.seed}, options);
    if (!failing.result.passed) found_at = k;
  }
  ASSERT_LT(found_at, kBudget) << "no failure within " << kBudget << " cases from seed 1";
  EXPECT_EQ(failing.subject.params.at("n") % 64, 63) << failing.subject.id();

  const ShrinkResult s = shrink(failing, 200);
  EXPECT_EQ(s.minimal.params, (Params{{"n", 63}, {"rows", 1}})) << s.minimal.id();
  EXPECT_EQ(s.options.schedule.str(), "in-order");
  EXPECT_EQ(s.minimal.seed, 1u);
  EXPECT_FALSE(s.outcome.result.passed);
  EXPECT_LT(s.runs, 50u);
}

TEST(Fuzzer, ShrinkKeepsTheFailureKind) {
  // A case that passes stays where it is: nothing smaller fails the same way.
  const CaseOutcome ok =
      run_case({&planted(), {{"n", 64}, {"rows", 1}}, 1}, metalsim::ExecutionOptions{});
  ASSERT_TRUE(ok.result.passed);
  EXPECT_FALSE(same_failure(ok, ok));
}

TEST(FuzzCommand, PrintsTheReproAndSavesACorpusThatReplays) {
  const fs::path dir =
      fs::temp_directory_path() / ("metalsim_cli_corpus_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const CliRun r =
      cli({"fuzz", "cli_planted_tile", "--cases", "40", "--seed", "1", "--corpus", dir.string()});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_NE(
      r.out.find(
          "reproduce: metalsim run 'cli_planted_tile(n=63,rows=1)' --seed 1 --schedule in-order"),
      std::string::npos)
      << r.out;
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    std::ifstream in(e.path());
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("kernel"), "cli_planted_tile");
    EXPECT_EQ(j.at("params").at("n"), 63);
  }
  EXPECT_GE(files, 1u);

  // The bug is not fixed: replay reports the entry as still failing.
  const CliRun replay = cli({"fuzz", "--replay", dir.string()});
  EXPECT_EQ(replay.code, kExitFailed) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("STILL FAILS"), std::string::npos) << replay.out;
  fs::remove_all(dir);
}

TEST(FuzzCommand, KnownBugFailuresAreExpected) {
  const CliRun r = cli({"fuzz", "cli_planted_tile_as_documented", "--cases", "20", "--seed", "1",
                        "--max-shrink-runs", "30"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_NE(r.out.find("known bug reproduced"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cli_planted_tile_as_documented(n=63,rows=1)"), std::string::npos) << r.out;
}

TEST(FuzzCommand, NeedsAKernel) {
  EXPECT_EQ(cli({"fuzz"}).code, kExitUsage);
  EXPECT_EQ(cli({"fuzz", "no_such_kernel"}).code, kExitUsage);
  EXPECT_EQ(cli({"fuzz", "cli_scale", "--shard", "3/3"}).code, kExitUsage);
}

}  // namespace
}  // namespace metalsim::cli::testing

namespace metalsim::cli::testing {
namespace {

// Issue 14: a campaign never draws a case over its memory budget; the skipped draws are
// reported and the campaign still ends cleanly.
TEST(FuzzBudget, DrawsOverTheMemoryBudgetAreSkippedAndReported) {
  const CliRun tight = cli({"fuzz", "cli_scale", "--cases", "5", "--max-memory", "1M"});
  EXPECT_EQ(tight.code, kExitOk) << tight.out << tight.err;
  EXPECT_NE(tight.out.find("draws over the memory budget of 1 MiB per case skipped"),
            std::string::npos)
      << tight.out;
  EXPECT_NE(tight.out.find("0 passed, 0 failed"), std::string::npos) << tight.out;
  const CliRun roomy = cli({"fuzz", "cli_scale", "--cases", "5", "--max-memory", "4G"});
  EXPECT_EQ(roomy.code, kExitOk) << roomy.out << roomy.err;
  EXPECT_EQ(roomy.out.find("over the memory budget"), std::string::npos) << roomy.out;
  EXPECT_NE(roomy.out.find("5 passed, 0 failed"), std::string::npos) << roomy.out;
  EXPECT_EQ(cli({"fuzz", "cli_scale", "--max-memory", "lots"}).code, kExitUsage);
}

// The size cap of a --time campaign's first cases (cmd_fuzz.cpp, `ramped`): draws over it are
// drawn again, and not counted as over the memory budget.
TEST(FuzzBudget, ASizeCapRedrawsWithoutCountingAgainstTheBudget) {
  const spec::KernelSpec* s = spec::SpecRegistry::find("cli_scale");
  ASSERT_NE(s, nullptr);
  const metalsim::ExecutionOptions options;
  std::vector<uint64_t> sizes;
  const CaseGenerator free(*s, 3, {0, 0, options});
  for (size_t k = 0; k < 40; ++k) sizes.push_back(case_size_bytes(*s, free.generate(k).params));
  std::sort(sizes.begin(), sizes.end());
  const uint64_t cap = sizes[sizes.size() / 2];
  ASSERT_LT(sizes.front(), sizes.back()) << "cli_scale's draws vary in size";
  const CaseGenerator capped(*s, 3, {0, 0, options, cap});
  for (size_t k = 0; k < 40; ++k) {
    const FuzzCase fc = capped.generate(k);
    EXPECT_TRUE(fc.found) << k;
    EXPECT_EQ(fc.over_budget, 0u) << k;
    EXPECT_LE(case_size_bytes(*s, fc.params), cap) << fc.params.at("n");
  }
}

TEST(FuzzBudget, ACaseOverTheMemoryAvailableIsRefusedNotRun) {
  // Every byte of 2^40 floats could not be allocated anywhere this test runs.
  const spec::KernelSpec* s = spec::SpecRegistry::find("softmax");
  ASSERT_NE(s, nullptr);
  const CaseOutcome out = run_case({s, s->complete({{"rows", 1 << 16}, {"cols", 1 << 20}}), 1},
                                   metalsim::ExecutionOptions{});
  EXPECT_FALSE(out.result.passed);
  EXPECT_NE(out.result.failure.find("of memory;"), std::string::npos) << out.result.failure;
}

TEST(FuzzBudget, TimeBoundCampaignEndsNearItsDeadline) {
  const auto t0 = std::chrono::steady_clock::now();
  const CliRun r =
      cli({"fuzz", "cli_scale", "cli_planted_tile", "--time", "2", "--shrink", "none"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 6.0) << r.out;
}

}  // namespace
}  // namespace metalsim::cli::testing

namespace metalsim::cli::testing {
namespace {

// Issue 28 item 4: a quick fuzzer with readable output.

std::vector<std::string> names(const std::vector<const KernelSpec*>& specs) {
  std::vector<std::string> v;
  for (const KernelSpec* s : specs) v.push_back(s->name());
  return v;
}

size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  size_t n = 0;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) n += l.rfind(prefix, 0) == 0;
  return n;
}

// The table row of `kernel`, split on blanks: kernel, cases, failures, minimal repros, stopped.
std::vector<std::string> tally_row(const std::string& out, const std::string& kernel) {
  std::istringstream lines(out);
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind(kernel + " ", 0) != 0) continue;
    std::istringstream words(l);
    std::vector<std::string> row;
    for (std::string w; words >> w;) row.push_back(w);
    return row;
  }
  return {};
}

TEST(FuzzFilter, ASpecNameIsThatSpecAloneAndAGlobTakesBoth) {
  EXPECT_EQ(names(select_specs({"softmax"})), (std::vector<std::string>{"softmax"}));
  EXPECT_EQ(names(select_specs({"softmax*"})),
            (std::vector<std::string>{"softmax", "softmax_as_documented"}));
  // A family named by no spec still selects its specs.
  EXPECT_EQ(names(select_specs({"cli_test"})),
            (std::vector<std::string>{"cli_planted_tile", "cli_planted_tile_as_documented",
                                      "cli_racy", "cli_scale"}));
  const CliRun r = cli({"fuzz", "softmax", "--cases", "2", "--limit", "8"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_FALSE(tally_row(r.out, "softmax").empty()) << r.out;
  EXPECT_TRUE(tally_row(r.out, "softmax_as_documented").empty()) << r.out;
}

// A kind shown once: the first failure in full, its shrunk case, then one count line.
TEST(FuzzOutput, RepeatedFailuresOfAKindAreCountedNotReprinted) {
  const CliRun r = cli({"fuzz", "cli_planted_tile", "--cases", "60", "--seed", "1"});
  EXPECT_EQ(r.code, kExitFailed) << r.out;
  const auto row = tally_row(r.out, "cli_planted_tile");
  ASSERT_GE(row.size(), 6u) << r.out;
  const size_t failures = std::stoul(row[2]);
  ASSERT_GE(failures, 3u) << r.out;
  EXPECT_EQ(count_lines_starting(r.out, "FAIL case "), 1u) << r.out;
  EXPECT_EQ(count_lines_starting(r.out, "  shrunk in "), 1u) << r.out;
  EXPECT_EQ(count_lines_starting(r.out, "cli_planted_tile: " + std::to_string(failures - 1) +
                                            " more unwritten failures not printed (shown: case "),
            1u)
      << r.out;
  // --shrink all still shows every failure.
  const CliRun all = cli({"fuzz", "cli_planted_tile", "--cases", "60", "--seed", "1", "--shrink",
                          "all", "--max-shrink-runs", "20"});
  EXPECT_EQ(count_lines_starting(all.out, "FAIL case "), failures) << all.out;
}

// The ramp of --cases and --time: small first, large rarely.
TEST(FuzzRamp, CasesDrawSmallSizesFirstAndLargeOnesRarely) {
  const DrawLimits none;
  EXPECT_EQ(ramped(none, 0).size_bytes, 16ull << 20);
  EXPECT_EQ(ramped(none, 0).limit, 64);
  EXPECT_EQ(ramped(none, 1).size_bytes, 32ull << 20);
  EXPECT_EQ(ramped(none, 1).limit, 256);
  EXPECT_EQ(ramped(none, 2).limit, 64);
  EXPECT_EQ(ramped(none, 63).size_bytes, 1ull << 30);
  EXPECT_EQ(ramped(none, 1023).limit, 0) << "no value limit from case 1023";
  EXPECT_EQ(ramped({10, 0, {}, 0}, 1).limit, 10) << "--limit still holds";
  size_t large = 0;
  for (size_t k = 0; k < 200; ++k) large += ramped(none, k).limit > 1024;
  EXPECT_EQ(large, 200u / 8) << "one case in eight may draw values over 1024";
  // softmax draws up to 65,536 rows of 5,871 columns: its first cases stay within the ramp, and
  // are random draws, not the sweep a draw that fits nothing falls back on.
  const KernelSpec* s = spec::SpecRegistry::find("softmax");
  ASSERT_NE(s, nullptr);
  size_t different = 0;
  for (size_t k = 0; k < 16; ++k) {
    const DrawLimits limits = ramped(none, k);
    const FuzzCase fc = CaseGenerator(*s, 7, limits).generate(k);
    ASSERT_TRUE(fc.found) << k;
    EXPECT_LE(case_size_bytes(*s, fc.params), limits.size_bytes) << k;
    for (const auto& [name, value] : fc.params) EXPECT_LE(value, limits.limit) << name;
    different += fc.params != s->complete(s->sweep()[k % s->sweep().size()]);
  }
  EXPECT_GT(different, 8u);
  // The program ramps --cases too: softmax's case 0 is at most 64 rows of 64 columns.
  const CliRun r = cli({"fuzz", "softmax", "--cases", "1", "--seed", "7", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const auto j = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_LE(j.at("elements").get<uint64_t>(), 64u * 64u) << j.at("id");
}

// The replay on fibers of a failure found in lane loops is bounded, and says when it is skipped.
TEST(FuzzOutput, TheBoundedReplayIsReportedWhenSkipped) {
  const CliRun r = cli({"fuzz", "cli_planted_tile", "--cases", "10", "--seed", "1", "--shrink",
                        "none", "--max-replay-memory", "1K"});
  EXPECT_EQ(r.code, kExitFailed) << r.out;
  EXPECT_NE(r.out.find("): skipped: the case needs "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", over the replay's 1 KiB (--max-replay-memory)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  explain on fibers: metalsim run 'cli_planted_tile("), std::string::npos)
      << r.out;
  // Within the cap, the shrunk case is replayed.
  const CliRun replayed = cli({"fuzz", "cli_planted_tile", "--cases", "10", "--seed", "1"});
  EXPECT_NE(replayed.out.find("  on fibers with --checks all (cli_planted_tile(n=63,rows=1)): "),
            std::string::npos)
      << replayed.out;
  EXPECT_EQ(replayed.out.find("skipped"), std::string::npos) << replayed.out;
}

// Round robin under --time: every kernel gets cases, the last in name order too.
TEST(FuzzTime, EverySpecGetsACaseUnderAShortTime) {
  const CliRun r = cli({"fuzz", "cli_test", "--time", "0.2", "--shrink", "none"});
  for (const char* kernel :
       {"cli_planted_tile", "cli_planted_tile_as_documented", "cli_racy", "cli_scale"}) {
    const auto row = tally_row(r.out, kernel);
    ASSERT_GE(row.size(), 6u) << kernel << "\n" << r.out;
    EXPECT_GE(std::stoul(row[1]), 1u) << kernel << "\n" << r.out;
  }
}

// ------------------------------ bytes (a libFuzzer input) drawn through the same definitions

FuzzCase from_bytes(const std::vector<uint8_t>& bytes, const DrawLimits& limits = {}) {
  ByteDraws draws(bytes.data(), bytes.size());
  return draw_case(planted(), draws, limits);
}

TEST(ByteDraws, TheEmptyInputIsTheSmallestCase) {
  const FuzzCase c = from_bytes({});
  EXPECT_TRUE(c.found);
  EXPECT_EQ(c.params, (Params{{"n", 1}, {"rows", 1}}));
  EXPECT_EQ(c.seed, 1u);
  EXPECT_EQ(c.schedule.str(), "in-order");
}

TEST(ByteDraws, ReadJustTheBytesAChoiceNeedsAndZerosPastTheEnd) {
  const std::vector<uint8_t> bytes = {0x01, 0x02, 0x03};
  ByteDraws d(bytes.data(), bytes.size());
  EXPECT_EQ(d.below(1), 0u);  // one value: no byte read
  EXPECT_EQ(d.consumed(), 0u);
  EXPECT_EQ(d.below(200), 1u);               // one byte
  EXPECT_EQ(d.below(1000), 0x0203u % 1000);  // two bytes, big-endian
  EXPECT_EQ(d.below(1000), 0u);              // past the end
  EXPECT_EQ(d.unit(), 0.0);
  EXPECT_EQ(d.consumed(), 7u);
}

// The first byte pair decides favoured (< 0.6) or log-uniform; the next byte picks among n's
// favoured values {1, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025, 4096}.
TEST(ByteDraws, BytesPickFavouredValuesThroughTheParameterDefinitions) {
  const FuzzCase c = from_bytes({0x00, 0x00, 1});
  EXPECT_EQ(c.params.at("n"), 63);
  EXPECT_EQ(from_bytes({0x00, 0x00, 3}).params.at("n"), 65);
  // --limit applies as in a campaign: the favoured values are those within it.
  EXPECT_EQ(from_bytes({0x00, 0x00, 5}, {64, 0, {}, 0}).params.at("n"), 64);  // of {1, 63, 64}
}

TEST(ByteDraws, SameBytesSameCaseAndEveryCaseValid) {
  uint64_t state = 12345;
  for (int i = 0; i < 200; ++i) {
    std::vector<uint8_t> bytes(size_t(i % 24));
    for (auto& b : bytes) b = uint8_t((state = state * 6364136223846793005ull + 1) >> 56);
    const FuzzCase x = from_bytes(bytes), y = from_bytes(bytes);
    EXPECT_EQ(x.params, y.params);
    EXPECT_EQ(x.seed, y.seed);
    std::string why;
    EXPECT_TRUE(planted().valid(x.params, &why)) << why;
  }
}

}  // namespace
}  // namespace metalsim::cli::testing
