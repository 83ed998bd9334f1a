// The gpu-perf-phase3 document's error table: an empty prompt, a token id out of range and a
// call past the KV capacity are ModelErrors that name what was wrong; the failed call changes
// nothing (position, logits, KV cache) and the runner goes on as if it had not been made. A
// command buffer that fails is an error too, and the rotating cache gets its slots back.
#include <gtest/gtest.h>

#include <cstring>

#include "host/model/model_runner.h"
#include "tests/model/model_test_util.h"

namespace metalsim::model {
namespace {

using testing::random_tokens;
using testing::small_config;

// Runs `call`, which must throw a ModelError of `kind` whose message contains `text`.
template <class F>
void expect_error(F&& call, ModelErrorKind kind, const std::string& text) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one containing '" << text << "'";
  } catch (const ModelError& e) {
    EXPECT_EQ(int(e.kind()), int(kind)) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

class ModelErrors : public ::testing::Test {
 protected:
  ModelErrors() : device_(testing::test_device()) {}

  // After the failed call, `runner` must behave exactly like `twin`, which never saw it.
  static void expect_same_as_twin(ModelRunner& runner, ModelRunner& twin, uint32_t token) {
    ASSERT_EQ(runner.position(), twin.position());
    ASSERT_EQ(runner.logits().size(), twin.logits().size());
    EXPECT_EQ(std::memcmp(runner.logits().data(), twin.logits().data(), runner.logits().size() * 4),
              0);
    EXPECT_EQ(runner.forward_token(token), twin.forward_token(token));
    EXPECT_EQ(std::memcmp(runner.logits().data(), twin.logits().data(), runner.logits().size() * 4),
              0);
  }

  NS::SharedPtr<MTL::Device> device_;
};

TEST_F(ModelErrors, EmptyPromptTokenOutOfRangeAndCapacityChangeNothing) {
  ModelConfig c = small_config();
  c.max_context = 10;
  const ModelWeights w = generate_weights(c, 1);
  ModelRunner runner(device_.get(), c, w), twin(device_.get(), c, w);
  const auto prompt = random_tokens(6, c.vocab, 6);
  runner.forward_prompt(prompt);
  twin.forward_prompt(prompt);

  expect_error([&] { runner.forward_prompt({}); }, ModelErrorKind::empty_prompt, "empty prompt");
  const std::vector<uint32_t> bad = {1, 2, c.vocab};
  expect_error([&] { runner.forward_prompt(bad); }, ModelErrorKind::token_out_of_range,
               "token id 256 at index 2 of the call is out of range: the vocabulary has 256 ids");
  expect_error([&] { runner.forward_token(1000); }, ModelErrorKind::token_out_of_range,
               "token id 1000");
  expect_error([&] { runner.forward_prompt(random_tokens(5, c.vocab, 5)); },
               ModelErrorKind::kv_capacity,
               "5 token(s) from position 6 would end at 11, past the capacity of 10 tokens");
  expect_same_as_twin(runner, twin, 17);  // position 7

  for (uint32_t t : {1u, 2u, 3u}) EXPECT_NO_THROW(runner.forward_token(t));  // fills the capacity
  expect_error([&] { runner.forward_token(4); }, ModelErrorKind::kv_capacity,
               "past the capacity of 10");
  EXPECT_EQ(runner.position(), 10u);
}

bool all_zero(const KvCache& cache, uint32_t layer, uint32_t slots, uint32_t row_floats) {
  const float* k = static_cast<const float*>(cache.keys(layer)->contents());
  for (size_t i = 0; i < size_t(slots) * row_floats; ++i)
    if (k[i] != 0.0f) return false;
  return true;
}

// decode_attention's kernel-scope arrays are 3104 bytes of threadgroup memory; on a device that
// allows 2048 (what argmax needs), a call's first attention fails validation after that call's
// first KV append has run.
TEST_F(ModelErrors, AFailedCommandBufferIsAnErrorAndTheRotatingCacheGetsItsSlotsBack) {
  MTL::DeviceProfile small;
  small.maxThreadgroupMemoryLength = 2048;
  auto tight = NS::TransferPtr(new MTL::Device(small));
  metalsim::ExecutionOptions one_worker = tight->executionOptions();
  one_worker.workers = 1;
  tight->setExecutionOptions(one_worker);
  ModelConfig c = small_config();
  const ModelWeights w = generate_weights(c, 2);
  const auto prompt = random_tokens(3, c.vocab, 3);

  // The chunked cache keeps nothing to restore (slots past the position are read by no one):
  // the append did run.
  ModelRunner chunked(tight.get(), c, w);
  expect_error([&] { chunked.forward_prompt(prompt); }, ModelErrorKind::command_buffer,
               "limit.threadgroup_memory");
  EXPECT_EQ(chunked.position(), 0u);
  EXPECT_FALSE(all_zero(chunked.kv_cache(), 0, 1, c.kv_dim()));

  // The rotating cache's slots may hold tokens still in the window: they are put back.
  c.kv_cache = KvCacheKind::rotating;
  c.window = 4;
  ModelRunner rotating(tight.get(), c, w);
  expect_error([&] { rotating.forward_prompt(prompt); }, ModelErrorKind::command_buffer,
               "forward pass of 3 token(s) at position 0 failed");
  EXPECT_EQ(rotating.position(), 0u);
  EXPECT_TRUE(rotating.logits().empty());
  for (uint32_t l = 0; l < c.layers; ++l)
    EXPECT_TRUE(all_zero(rotating.kv_cache(), l, c.window, c.kv_dim())) << l;
}

}  // namespace
}  // namespace metalsim::model
