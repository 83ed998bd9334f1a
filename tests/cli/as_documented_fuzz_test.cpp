// Issue 6 acceptance: the fuzzer finds each `_as_documented` kernel's failures within a bounded
// number of cases from a fixed seed, and shrinks each to a minimal case recorded in
// docs/findings.md. The campaign is the one `metalsim fuzz` runs (CaseGenerator, run_case,
// shrink; checks sync,init,mem; the first failure of each kind shrunk, as --shrink kind does):
//   metalsim fuzz KERNEL --seed 1 --cases N --limit L
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <sstream>

#include "cli_test_util.h"
#include "host/cli/fuzzer.h"

namespace metalsim::cli::testing {
namespace {

// How each kernel is fuzzed: as few cases and as small a cap as still reach its findings.
struct Campaign {
  const char* kernel;
  uint64_t seed;
  size_t cases;
  int64_t limit;
};
// --limit 64 keeps tg < 256, so the softmax and rms_norm campaigns reach only their first
// finding (the tree past threadgroup memory); larger caps cost seconds per case and shrink to
// cases the 200-run shrink budget does not finish (e.g. shared_floats walked down one by one).
// flash_attention stops at 5 cases: case 5 is a kernel.fault (Q/O offset past the guard page)
// whose shrunk form still depends on the random schedule and the allocation addresses.
constexpr Campaign kCampaigns[] = {
    {"flash_attention_forward_as_documented", 1, 5, 64},
    {"gemm_trellis_packed_as_documented", 1, 3, 64},
    {"matmul_q4_0_as_documented", 1, 3, 64},
    {"matmul_q8_0_as_documented", 1, 3, 64},
    {"rms_norm_as_documented", 1, 3, 64},
    {"rope_as_documented", 1, 4, 64},
    {"softmax_as_documented", 1, 3, 64},
};

// The minimal cases docs/findings.md records (summary table), run in-order, checks
// sync,init,mem; `seed` is the input seed.
struct Recorded {
  const char* kernel;
  Params params;
  uint64_t seed;
  const char* finding;
};
const std::vector<Recorded>& recorded() {
  static const std::vector<Recorded> rows = {
      {"gemm_trellis_packed_as_documented",
       {{"M", 1}, {"K", 1}, {"N", 1}, {"bits", 2}, {"group_size", 1}, {"n_levels", 0}},
       1,
       "trellis 2: no column bound: with one group the scale read is the first past an end "
       "(bounds.device)"},
      {"gemm_trellis_packed_as_documented",
       {{"M", 1}, {"K", 2}, {"N", 8}, {"bits", 2}, {"group_size", 1}, {"n_levels", 0}},
       1,
       "trellis 1: rows 1..7 of each sub-tile take row 0's weight (mismatch; the shrink's path "
       "since byte-precise bounds stops at N 8)"},
      {"gemm_trellis_packed_as_documented",
       {{"M", 1}, {"K", 2}, {"N", 5}, {"bits", 2}, {"group_size", 1}, {"n_levels", 0}},
       1,
       "trellis 1: rows 1..7 of each sub-tile take row 0's weight (mismatch)"},
      {"flash_attention_forward_as_documented",
       {{"batch", 1},
        {"heads", 1},
        {"kv_heads", 0},
        {"seq_q", 1},
        {"seq_kv", 1},
        {"head_dim", 43},
        {"kv_offset", 0}},
       1,
       "attention 1: threadgroup memory 384*head_dim+16384 > 32 KiB (limit.threadgroup_memory)"},
      {"flash_attention_forward_as_documented",
       {{"batch", 1},
        {"heads", 2},
        {"kv_heads", 0},
        {"seq_q", 2},
        {"seq_kv", 1},
        {"head_dim", 1},
        {"kv_offset", 0}},
       1,
       "attention 3: Q/O offset with seq_kv, seq_q > seq_kv: heads overwrite each other (O[3] "
       "never written)"},
      {"flash_attention_forward_as_documented",
       {{"batch", 1},
        {"heads", 2},
        {"kv_heads", 0},
        {"seq_q", 1},
        {"seq_kv", 2},
        {"head_dim", 8},
        {"kv_offset", 0}},
       1,
       "attention 3: Q/O offset with seq_kv, seq_q < seq_kv: bounds.device on Q"},
      {"flash_attention_forward_as_documented",
       {{"batch", 1},
        {"heads", 1},
        {"kv_heads", 0},
        {"seq_q", 1},
        {"seq_kv", 2},
        {"head_dim", 1},
        {"kv_offset", 1}},
       1,
       "attention 4: kv_cache_offset never read (mismatch at O[0])"},
      {"flash_attention_forward_as_documented",
       {{"batch", 1},
        {"heads", 2},
        {"kv_heads", 1},
        {"seq_q", 1},
        {"seq_kv", 1},
        {"head_dim", 5},
        {"kv_offset", 0}},
       1,
       "attention 5: K/V indexed by the query head (bounds.device on K; head_dim 4 stays in the "
       "padding)"},
      {"flash_attention_forward_as_documented",
       {{"batch", 1},
        {"heads", 2},
        {"kv_heads", 1},
        {"seq_q", 1},
        {"seq_kv", 1},
        {"head_dim", 1},
        {"kv_offset", 0}},
       1,
       "attention 5: K/V indexed by the query head, the smallest case now that device bounds are "
       "byte-precise (K read at byte offset 2 of 2)"},
      {"matmul_q4_0_as_documented",
       {{"M", 1}, {"N", 1}, {"K", 1}, {"tgx", 1}, {"tgy", 1}},
       844573,
       "quantized_matmul: K / 32 drops the tail, here all of K (C = 0; at seed 1 the one product "
       "is 0)"},
      {"matmul_q8_0_as_documented",
       {{"M", 1}, {"N", 1}, {"K", 1}, {"tgx", 1}, {"tgy", 1}},
       1,
       "quantized_matmul: K / 32 drops the tail, here all of K (C = 0)"},
      {"rms_norm_as_documented",
       {{"rows", 1}, {"hidden", 1}, {"tg", 1}, {"shared_floats", 0}},
       1,
       "elementwise rms_norm: 256-float tree whatever tg (bounds.threadgroup)"},
      {"rope_as_documented",
       {{"seq", 1},
        {"q_heads", 2},
        {"kv_heads", 1},
        {"head_dim", 2},
        {"offset", 0},
        {"theta", 1},
        {"tg", 1}},
       1,
       "elementwise rope: one head count, GQA reads past K (bounds.device at the first byte past "
       "K's 4 bytes, now that device bounds are byte-precise)"},
      {"rope_as_documented",
       {{"seq", 3},
        {"q_heads", 2},
        {"kv_heads", 1},
        {"head_dim", 2},
        {"offset", 0},
        {"theta", 1},
        {"tg", 1}},
       1,
       "elementwise rope: one head count, GQA writes past K (bounds.device; seq 1 and 2 stay in "
       "the padding)"},
      {"rope_as_documented",
       {{"seq", 1},
        {"q_heads", 1},
        {"kv_heads", 2},
        {"head_dim", 2},
        {"offset", 1},
        {"theta", 1},
        {"tg", 1}},
       1,
       "elementwise rope: one head count, more K heads than Q: K head 1 never rotated (offset 0 "
       "rotates by 0)"},
      {"softmax_as_documented",
       {{"rows", 1}, {"cols", 1}, {"tg", 1}, {"fill", 0}},
       1,
       "softmax: 256-thread trees whatever tg (bounds.threadgroup)"},
  };
  return rows;
}

const Recorded* find_recorded(const ShrinkResult& s) {
  const Case& r = s.minimal;
  for (const auto& row : recorded())
    if (row.kernel == r.spec->name() && r.spec->complete(row.params) == r.params &&
        row.seed == r.seed && s.options.schedule.kind == metalsim::ScheduleKind::in_order)
      return &row;
  return nullptr;
}

const Campaign* find_campaign(const std::string& kernel) {
  for (const auto& c : kCampaigns)
    if (kernel == c.kernel) return &c;
  return nullptr;
}

TEST(AsDocumentedFuzz, EveryKnownBugKernelHasACampaign) {
  size_t known = 0;
  for (const KernelSpec* s : spec::SpecRegistry::all()) {
    if (s->expectation() != spec::Expectation::known_bug || s->family() == "cli_test") continue;
    ++known;
    EXPECT_NE(find_campaign(s->name()), nullptr) << s->name() << " has no campaign here";
  }
  EXPECT_EQ(known, std::size(kCampaigns));
}

class AsDocumentedFuzz : public ::testing::TestWithParam<Campaign> {};

TEST_P(AsDocumentedFuzz, FindsAndShrinksToARecordedMinimalCase) {
  const Campaign c = GetParam();
  const KernelSpec* spec = spec::SpecRegistry::find(c.kernel);
  ASSERT_NE(spec, nullptr) << c.kernel;
  ASSERT_EQ(spec->expectation(), spec::Expectation::known_bug);

  metalsim::ExecutionOptions base;
  ASSERT_TRUE(metalsim::CheckSet::parse("sync,init,mem", base.checks));  // metalsim fuzz's default
  const CaseGenerator gen(*spec, c.seed, {c.limit, 0, base});
  std::map<std::string, ShrinkResult> shrunk;  // failure kind -> shrunk first failure of the kind
  size_t failures = 0;
  for (size_t k = 0; k < c.cases; ++k) {
    const FuzzCase fc = gen.generate(k);
    metalsim::ExecutionOptions options = base;
    options.schedule = fc.schedule;
    const CaseOutcome out = run_case({spec, fc.params, fc.seed}, options);
    if (out.result.passed) continue;
    ++failures;
    const std::string kind = spec::failure_kind(out.result);
    if (shrunk.contains(kind)) continue;
    shrunk.emplace(kind, shrink(out, 200));
  }
  ASSERT_GT(failures, 0u) << c.kernel << ": no failure in " << c.cases << " cases from seed "
                          << c.seed;

  std::ostringstream found;
  for (const auto& [kind, s] : shrunk) {
    SCOPED_TRACE(kind + ": " + spec::repro_command(s.minimal, s.options));
    found << "  " << kind << " -> " << spec::repro_command(s.minimal, s.options) << " (" << s.runs
          << " shrink runs)\n";
    EXPECT_FALSE(s.outcome.result.passed);
    EXPECT_EQ(spec::failure_kind(s.outcome.result), kind);
    EXPECT_LT(s.runs, 200u) << "the shrink ran out of budget";
    const Recorded* row = find_recorded(s);
    EXPECT_NE(row, nullptr) << "not a minimal case recorded in docs/findings.md";
    if (row != nullptr) found << "    = " << row->finding << "\n";
  }
  std::cout << c.kernel << ": " << failures << " failures in " << c.cases << " cases\n"
            << found.str();
}

INSTANTIATE_TEST_SUITE_P(Kernels, AsDocumentedFuzz, ::testing::ValuesIn(kCampaigns),
                         [](const auto& p) { return std::string(p.param.kernel); });

}  // namespace
}  // namespace metalsim::cli::testing
