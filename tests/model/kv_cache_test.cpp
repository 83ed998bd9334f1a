// The two KV caches of the go-mlx document: the chunked cache grows in chunks and keeps what it
// holds, up to its capacity; the rotating cache keeps a window, and a model run past its window
// equals the reference with the same sliding window. Cached K and V equal the reference's.
#include <gtest/gtest.h>

#include "host/model/chunked_kv_cache.h"
#include "host/model/model_runner.h"
#include "tests/model/model_test_util.h"
#include "tests/model/reference_model.h"

namespace metalsim::model {
namespace {

using testing::logit_tolerance;
using testing::random_tokens;
using testing::relative_error;
using testing::small_config;

TEST(ChunkedKvCache, GrowsInChunksUpToTheCapacityKeepingItsContents) {
  ModelConfig c = small_config();  // chunks of 16, capacity 128
  c.max_context = 40;
  auto device = testing::test_device();
  ChunkedKvCache cache(device.get(), c);
  EXPECT_EQ(cache.capacity(), 0u);
  cache.reserve(0, 1);
  EXPECT_EQ(cache.capacity(), 16u);
  static_cast<float*>(cache.keys(1)->contents())[5 * c.kv_dim() + 3] = 42.0f;
  cache.reserve(1, 16);  // ends at 17: a second chunk
  EXPECT_EQ(cache.capacity(), 32u);
  EXPECT_EQ(cache.key_row(1, 5)[3], 42.0f);
  cache.reserve(17, 23);  // ends at 40: the capacity, not a third whole chunk
  EXPECT_EQ(cache.capacity(), 40u);
  EXPECT_EQ(cache.key_row(1, 5)[3], 42.0f);
  EXPECT_THROW(cache.reserve(40, 1), ModelError);
  EXPECT_EQ(cache.capacity(), 40u);
}

TEST(ChunkedKvCache, HoldsTheReferencesKeysAndValuesAfterRoPE) {
  const ModelConfig c = small_config();
  auto device = testing::test_device();
  const ModelWeights weights = generate_weights(c, 5);
  const auto prompt = random_tokens(20, c.vocab, 20);
  ModelRunner runner(device.get(), c, weights);
  runner.forward_prompt(prompt);
  const auto ref = reference::ReferenceModel(c, weights).run(prompt, prompt.size());
  EXPECT_EQ(runner.kv_cache().capacity(), 32u);  // 20 tokens: two chunks of 16
  for (uint32_t l = 0; l < c.layers; ++l) {
    const auto ref_k = std::span(ref.keys[l]), ref_v = std::span(ref.values[l]);
    for (uint32_t p = 0; p < prompt.size(); ++p) {
      const auto k = std::span(runner.kv_cache().key_row(l, p), c.kv_dim());
      const auto v = std::span(runner.kv_cache().value_row(l, p), c.kv_dim());
      ASSERT_LE(relative_error(k, ref_k.subspan(p * c.kv_dim(), c.kv_dim())),
                logit_tolerance(c, p + 1))
          << "layer " << l << " K " << p;
      ASSERT_LE(relative_error(v, ref_v.subspan(p * c.kv_dim(), c.kv_dim())),
                logit_tolerance(c, p + 1))
          << "layer " << l << " V " << p;
    }
  }
}

// The window (8) is passed inside the prompt and again while decoding; every step's logits
// equal the reference whose attention sees only the last 8 positions.
TEST(RotatingKvCache, PastItsWindowEqualsTheSlidingWindowReference) {
  ModelConfig c = small_config();
  c.kv_cache = KvCacheKind::rotating;
  c.window = 8;
  auto device = testing::test_device();
  const ModelWeights weights = generate_weights(c, 11);
  const reference::ReferenceModel reference(c, weights);
  auto tokens = random_tokens(13, c.vocab, 13);
  ModelRunner runner(device.get(), c, weights);
  runner.forward_prompt(tokens);
  EXPECT_LE(relative_error(runner.logits(), reference.run(tokens, tokens.size() - 1).logits.back()),
            logit_tolerance(c, uint32_t(tokens.size())));
  for (uint32_t t : random_tokens(12, c.vocab, 99)) {
    runner.forward_token(t);
    tokens.push_back(t);
    ASSERT_LE(
        relative_error(runner.logits(), reference.run(tokens, tokens.size() - 1).logits.back()),
        logit_tolerance(c, uint32_t(tokens.size())))
        << "position " << tokens.size() - 1;
  }
  EXPECT_EQ(runner.kv_cache().capacity(), 8u);
  // Without the window the model computes something else: the test can tell them apart.
  ModelConfig unbounded = c;
  unbounded.kv_cache = KvCacheKind::chunked;
  EXPECT_GT(relative_error(runner.logits(), reference::ReferenceModel(unbounded, weights)
                                                .run(tokens, tokens.size() - 1)
                                                .logits.back()),
            logit_tolerance(c, uint32_t(tokens.size())));
}

}  // namespace
}  // namespace metalsim::model
