// forward_prompt(p) against feeding p token by token: the same next token, the same logits and
// the same KV cache contents, bit for bit (the multi-token mat-vec sums each token in the same
// order whatever the batch, and every other kernel works per row), then the same continuation.
#include <gtest/gtest.h>

#include <cstring>

#include "host/model/model_runner.h"
#include "tests/model/model_test_util.h"

namespace metalsim::model {
namespace {

using testing::random_tokens;
using testing::small_config;

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Every stored K and V row of every layer, compared bit for bit; returns the first difference.
std::string cache_difference(const KvCache& a, const KvCache& b, const ModelConfig& c,
                             uint32_t end) {
  for (uint32_t l = 0; l < c.layers; ++l)
    for (uint32_t p = 0; p < end; ++p) {
      if (!a.holds(p, end)) continue;
      const size_t bytes = c.kv_dim() * sizeof(float);
      if (std::memcmp(a.key_row(l, p), b.key_row(l, p), bytes) != 0)
        return "layer " + std::to_string(l) + " K of position " + std::to_string(p);
      if (std::memcmp(a.value_row(l, p), b.value_row(l, p), bytes) != 0)
        return "layer " + std::to_string(l) + " V of position " + std::to_string(p);
    }
  return {};
}

// `workers` for the batched runner, one for the token-by-token runner: with 2, the bits depend
// on neither the batch nor the number of workers.
void expect_prompt_equals_token_by_token(const ModelConfig& config, size_t n, uint64_t seed,
                                         uint32_t workers = 1) {
  auto batched_device = testing::test_device(workers), single_device = testing::test_device(1);
  const ModelWeights weights = generate_weights(config, 3);
  const auto prompt = random_tokens(n, config.vocab, seed);
  ModelRunner batched(batched_device.get(), config, weights),
      single(single_device.get(), config, weights);
  const uint32_t a = batched.forward_prompt(prompt);
  uint32_t b = 0;
  for (uint32_t t : prompt) b = single.forward_token(t);
  EXPECT_EQ(a, b) << n << " tokens";
  EXPECT_TRUE(same_bits(batched.logits(), single.logits())) << n << " tokens";
  EXPECT_EQ(cache_difference(batched.kv_cache(), single.kv_cache(), config, uint32_t(n)), "")
      << n << " tokens";
  // and they go on alike
  EXPECT_EQ(batched.forward_token(a), single.forward_token(b));
  EXPECT_TRUE(same_bits(batched.logits(), single.logits()));
}

TEST(PromptEquivalence, ForwardPromptEqualsTokenByTokenBitForBit) {
  for (size_t n : {1, 2, 5, 8, 33}) expect_prompt_equals_token_by_token(small_config(), n, 40 + n);
}

TEST(PromptEquivalence, AlsoWithARotatingCacheWrappedInsideThePromptAndTwoWorkers) {
  ModelConfig c = small_config();
  c.kv_cache = KvCacheKind::rotating;
  c.window = 8;
  expect_prompt_equals_token_by_token(c, 21, 21, 2);
}

TEST(PromptEquivalence, APromptAfterEarlierTokensContinuesFromThePosition) {
  const ModelConfig c = small_config();
  auto device = testing::test_device();
  const ModelWeights weights = generate_weights(c, 3);
  const auto tokens = random_tokens(12, c.vocab, 12);
  ModelRunner chunks(device.get(), c, weights), whole(device.get(), c, weights);
  chunks.forward_prompt(std::span(tokens).first(5));
  const uint32_t a = chunks.forward_prompt(std::span(tokens).subspan(5));
  const uint32_t b = whole.forward_prompt(tokens);
  EXPECT_EQ(a, b);
  EXPECT_EQ(chunks.position(), 12u);
  EXPECT_TRUE(same_bits(chunks.logits(), whole.logits()));
  EXPECT_EQ(cache_difference(chunks.kv_cache(), whole.kv_cache(), c, 12), "");
}

}  // namespace
}  // namespace metalsim::model
