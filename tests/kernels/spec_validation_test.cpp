// Every path that prepares a case goes through KernelSpec::prepare_case, which checks valid()
// once: a case the spec refuses never reaches its prepare(), and the error names the case (spec
// and parameters) and the broken rule.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "kernels/attention/attention_spec.h"
#include "kernels/spec/case_runner.h"

namespace metalsim::spec {
namespace {

const KernelSpec& spec_named(const std::string& name) {
  const KernelSpec* s = SpecRegistry::find(name);
  if (s == nullptr) throw std::runtime_error("no spec " + name);
  return *s;
}

// decode_attention_float's kv_heads must divide heads; its prepare() used to check that itself.
Params indivisible_heads() { return {{"heads", 4}, {"kv_heads", 3}}; }
const char* kIndivisibleId =
    "decode_attention_float(cache_slack=0,head_dim=64,heads=4,kv_heads=3,kv_len=33,layout=0)";

TEST(SpecValidation, PrepareCaseRefusesAnInvalidCaseNamingSpecAndRule) {
  const KernelSpec& s = spec_named("decode_attention_float");
  auto ctx = CaseRunner::shared().context(metalsim::ExecutionOptions{}, 1);
  try {
    s.prepare_case(s.complete(indivisible_heads()), *ctx);
    FAIL() << "an invalid case was prepared";
  } catch (const InvalidCase& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("invalid case ") + kIndivisibleId + ": kv_heads must divide heads");
  }
}

// softmax's prepare() never checked: tg = 0 would reach the dispatch.
TEST(SpecValidation, PrepareCaseRefusesForSpecsThatNeverChecked) {
  const KernelSpec& s = spec_named("softmax");
  auto ctx = CaseRunner::shared().context(metalsim::ExecutionOptions{}, 1);
  EXPECT_THROW(s.prepare_case(s.complete({{"tg", 0}}), *ctx), InvalidCase);
}

TEST(SpecValidation, CaseRunnerReportsAnInvalidCase) {
  const KernelSpec& s = spec_named("decode_attention_float");
  const Case c{&s, s.complete(indivisible_heads()), 1};
  const CaseOutcome out = CaseRunner::shared().run(c, metalsim::ExecutionOptions{});
  EXPECT_FALSE(out.result.passed);
  EXPECT_EQ(out.result.failure,
            std::string("invalid case ") + kIndivisibleId + ": kv_heads must divide heads");
  EXPECT_EQ(failure_kind(out.result), "invalid");
  EXPECT_EQ(out.verdict(), Verdict::fail);
}

TEST(SpecValidation, RunAttentionRefusesAnInvalidCase) {
  EXPECT_THROW(
      kernels::attention::run_attention("decode_attention", {{"heads", 4}, {"kv_heads", 3}},
                                        metalsim::ExecutionOptions{}),
      std::invalid_argument);
}

}  // namespace
}  // namespace metalsim::spec
