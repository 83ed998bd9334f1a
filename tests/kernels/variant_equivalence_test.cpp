// Every spec, every case of its boundary sweep, with the fast and the checked variant of its
// kernels (docs/architecture.md, "Two variants of every kernel"), on fibers and in lane loops:
// both variants must write the same bytes, the fast one must pass against the spec's reference,
// and each run must have run the variant its checks ask for (mem on: checked; mem, race and init
// off: fast).
#include <gtest/gtest.h>

#include <optional>

#include "kernels/spec/case_runner.h"
#include "simt/engine/dispatch.h"
#include "simt/engine/kernel_variants.h"
#include "tests/support/sweep_cases.h"

namespace metalsim::spec {
namespace {

using metalsim::KernelVariant;

struct VariantRun {
  std::vector<std::vector<unsigned char>> outputs;  // as the kernels left them
  CaseResult result;                                // against the reference
  uint64_t checked = 0, fast = 0;                   // dispatches of each variant it made
};

uint64_t dispatches(KernelVariant v) { return engine::variant_dispatches_total(v); }

VariantRun run_with(const SweepCase& c, metalsim::CheckSet checks, metalsim::ExecutionMode mode) {
  metalsim::ExecutionOptions options;
  options.checks = checks;
  options.mode = mode;
  VariantRun run;
  const uint64_t checked0 = dispatches(KernelVariant::checked);
  const uint64_t fast0 = dispatches(KernelVariant::fast);
  std::unique_ptr<CaseContext> ctx = CaseRunner::shared().context(options, 1);
  std::unique_ptr<PreparedCase> prepared = c.spec->prepare_case(c.spec->complete(c.params), *ctx);
  prepared->run_kernel();
  run.checked = dispatches(KernelVariant::checked) - checked0;
  run.fast = dispatches(KernelVariant::fast) - fast0;
  for (const PreparedCase::OutputView& v : prepared->outputs()) {
    const auto* p = static_cast<const unsigned char*>(v.data);
    run.outputs.emplace_back(p, p + v.bytes);
  }
  prepared->run_reference();
  run.result = prepared->compare();
  return run;
}

class VariantEquivalence : public ::testing::TestWithParam<SweepCase> {};

TEST_P(VariantEquivalence, FastAndCheckedVariantsWriteTheSameBytes) {
  const SweepCase& c = GetParam();
  const std::string id = case_id(c.spec->name(), c.spec->complete(c.params));
  metalsim::CheckSet checked = metalsim::CheckSet::none(), fast = metalsim::CheckSet::none();
  checked.sync = checked.mem = true;  // the defaults
  fast.sync = true;                   // --checks sync: mem, race and init off
  const bool has_fast = engine::fast_variants_built();
  // A dispatch the host refuses (a limit.* finding) runs no variant.
  const std::optional<Finding> finding = c.spec->finding_for(c.spec->complete(c.params));
  const bool dispatched = !finding || finding->kind.rfind("limit.", 0) != 0;
  // auto: lane loops, where the kernel has them (every kernel of kernels/ has).
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::automatic}) {
    const std::string where = id + " --mode " + std::string(metalsim::execution_mode_name(mode));
    const VariantRun a = run_with(c, checked, mode);
    const VariantRun b = run_with(c, fast, mode);
    EXPECT_EQ(a.fast, 0u) << where << ": mem on ran the fast variant";
    if (has_fast) {
      EXPECT_EQ(b.checked, 0u) << where << ": checks off ran the checked variant";
    }
    if (dispatched) {
      EXPECT_GT(has_fast ? b.fast : b.checked, 0u) << where << ": no dispatch ran";
    }
    if (c.spec->expectation() == Expectation::pass) {
      EXPECT_TRUE(b.result.passed) << where << " (fast variant): " << b.result.failure;
    }
    // A checked run that filed a report (a known bug's bounds.device) stopped a lane the fast
    // variant lets go on: its outputs may differ, as they would on a GPU.
    if (a.result.reports.empty()) {
      EXPECT_TRUE(a.outputs == b.outputs) << where << ": the variants wrote different bytes";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernels, VariantEquivalence, ::testing::ValuesIn(all_sweep_cases()),
                         sweep_case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VariantEquivalence);

}  // namespace
}  // namespace metalsim::spec
