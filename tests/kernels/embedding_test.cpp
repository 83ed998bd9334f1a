// Embedding family: out-of-range ids become a host error naming them; argmax ties and NaN.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/embedding/embedding_ref.h"
#include "kernels/spec/case_runner.h"

namespace metalsim::kernels::embedding {
namespace {

TEST(Embedding, OutOfRangeIdsAreNamedInTheHostError) {
  const std::vector<uint32_t> tokens{3, 100, 0xFFFFFFFFu};
  const uint32_t status[] = {0, 1, 1};
  EXPECT_EQ(token_errors(tokens, status, 100),
            "token id 100 at position 1 is out of range (vocab 100); "
            "token id 4294967295 at position 2 is out of range (vocab 100)");
  const uint32_t ok[] = {0, 0, 0};
  EXPECT_EQ(token_errors(tokens, ok, 100), "");
}

TEST(Embedding, KernelsFlagBadIdsAndWriteZeroRows) {
  for (const char* name : {"embedding_lookup_f16", "embedding_lookup_q8_0"}) {
    const spec::KernelSpec* s = spec::SpecRegistry::find(name);
    ASSERT_NE(s, nullptr);
    const auto r =
        spec::run_case(*s, {{"tokens", 5}, {"vocab", 9}, {"dim", 64}, {"bad", 5}, {"tg", 16}},
                       metalsim::ExecutionOptions{});
    EXPECT_TRUE(r.passed) << name << ": " << r.failure;
  }
}

TEST(Argmax, TiesGoToTheLowestIndexAndNaNIsSkipped) {
  const float nan = std::nanf("");
  const auto idx = argmax_ref({1, 3, 3, nan, nan, nan, nan, -INFINITY, -INFINITY}, 3, 3);
  // rows: {1, 3, 3}, {nan, nan, nan}, {nan, -inf, -inf}
  EXPECT_EQ(idx[0], 1u);
  EXPECT_EQ(idx[1], 3u);  // all NaN: cols, "no index"
  EXPECT_EQ(idx[2], 1u);  // -inf is a value; NaN is not
}

}  // namespace
}  // namespace metalsim::kernels::embedding
