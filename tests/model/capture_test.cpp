// Capture and replay (the graph-capture document through MTL::IndirectCommandBuffer): a runner
// that records each call size once and replays it gives the same next tokens, the same logits
// and the same KV cache contents, bit for bit, as the runner that encodes every call; through
// prompts, decode across the chunked cache's growth (the replay re-points the cache buffers),
// the rotating cache past its window, reset(), and a failed call.
#include <gtest/gtest.h>

#include <cstring>

#include "host/model/model_runner.h"
#include "tests/model/model_test_util.h"

namespace metalsim::model {
namespace {

using testing::random_tokens;
using testing::small_config;

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return !a.empty() && a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Every K and V row either cache holds at `end`, bit for bit; "" or the first difference.
std::string cache_difference(const ModelRunner& a, const ModelRunner& b) {
  const ModelConfig& c = a.config();
  const uint32_t end = a.position();
  for (uint32_t l = 0; l < c.layers; ++l)
    for (uint32_t p = 0; p < end; ++p) {
      if (!a.kv_cache().holds(p, end)) continue;
      const size_t bytes = c.kv_dim() * sizeof(float);
      if (std::memcmp(a.kv_cache().key_row(l, p), b.kv_cache().key_row(l, p), bytes) != 0 ||
          std::memcmp(a.kv_cache().value_row(l, p), b.kv_cache().value_row(l, p), bytes) != 0)
        return "layer " + std::to_string(l) + " position " + std::to_string(p);
    }
  return {};
}

class Capture : public ::testing::Test {
 protected:
  // A prompt of `prompt` tokens, then `decode` greedy tokens, on a captured runner and a plain
  // one; every call must agree bit for bit.
  void expect_same_as_uncaptured(const ModelConfig& c, uint32_t prompt, uint32_t decode) {
    const ModelWeights w = generate_weights(c, 4);
    ModelRunner captured(device_.get(), c, w), plain(device_.get(), c, w);
    captured.set_capture(true);
    const auto tokens = random_tokens(prompt, c.vocab, prompt);
    uint32_t a = captured.forward_prompt(tokens), b = plain.forward_prompt(tokens);
    ASSERT_EQ(a, b);
    ASSERT_TRUE(same_bits(captured.logits(), plain.logits()));
    for (uint32_t step = 0; step < decode; ++step) {
      a = captured.forward_token(a);
      b = plain.forward_token(b);
      ASSERT_EQ(a, b) << "decode step " << step;
      ASSERT_TRUE(same_bits(captured.logits(), plain.logits())) << "decode step " << step;
      // The one-token program is recorded once: by the first decode step, or by the prompt.
      EXPECT_EQ(captured.last_timing().record_seconds > 0, step == 0 && prompt != 1)
          << "decode step " << step;
    }
    EXPECT_EQ(cache_difference(captured, plain), "");
    EXPECT_EQ(captured.position(), prompt + decode);
    EXPECT_EQ(captured.recorded_programs(), prompt == 1 ? 1u : 2u);
    EXPECT_EQ(captured.last_timing().dispatches, plain.last_timing().dispatches);
  }

  NS::SharedPtr<MTL::Device> device_ = testing::test_device();
};

// Chunks of 16: decode from 9 to 39 crosses two reallocations of the cache.
TEST_F(Capture, DecodeEqualsTheUncapturedPathBitForBitAcrossCacheGrowth) {
  expect_same_as_uncaptured(small_config(), 9, 30);
}

TEST_F(Capture, OneTokenPromptsShareTheDecodeProgram) {
  expect_same_as_uncaptured(small_config(), 1, 5);
}

// Every recorded command has a barrier (command_sink.cpp): under the reversed schedule, which
// runs the commands of an indirect command buffer between barriers backwards (a concurrent group,
// docs/host_api.md), the replay still equals the uncaptured path bit for bit.
TEST_F(Capture, EveryCommandHasABarrierSoTheReversedScheduleKeepsTheOrder) {
  metalsim::ExecutionOptions reversed = device_->executionOptions();
  reversed.schedule.kind = metalsim::ScheduleKind::reversed;
  device_->setExecutionOptions(reversed);
  expect_same_as_uncaptured(small_config(), 5, 3);
}

// Window 8: the ring wraps inside the prompt and again while decoding; each replay writes
// the slot position % 8.
TEST_F(Capture, TheRotatingCachePastItsWindowEqualsTheUncapturedPath) {
  ModelConfig c = small_config();
  c.kv_cache = KvCacheKind::rotating;
  c.window = 8;
  expect_same_as_uncaptured(c, 11, 14);
}

// A prompt size recorded once is replayed after reset() (a new cache) and at another position.
TEST_F(Capture, APromptProgramReplaysAfterResetAndAtAnotherPosition) {
  const ModelConfig c = small_config();
  const ModelWeights w = generate_weights(c, 8);
  ModelRunner captured(device_.get(), c, w), plain(device_.get(), c, w);
  captured.set_capture(true);
  const auto first = random_tokens(7, c.vocab, 1), second = random_tokens(7, c.vocab, 2);
  captured.forward_prompt(first);
  EXPECT_GT(captured.last_timing().record_seconds, 0);
  captured.reset();
  EXPECT_EQ(captured.forward_prompt(second), plain.forward_prompt(second));
  EXPECT_EQ(captured.last_timing().record_seconds, 0);
  EXPECT_TRUE(same_bits(captured.logits(), plain.logits()));
  EXPECT_EQ(captured.forward_prompt(first), plain.forward_prompt(first));  // from position 7
  EXPECT_TRUE(same_bits(captured.logits(), plain.logits()));
  EXPECT_EQ(cache_difference(captured, plain), "");
  EXPECT_EQ(captured.recorded_programs(), 1u);
}

// A rejected call changes nothing on the captured path either.
TEST_F(Capture, ARejectedCallChangesNothing) {
  const ModelConfig c = small_config();
  const ModelWeights w = generate_weights(c, 6);
  ModelRunner captured(device_.get(), c, w), plain(device_.get(), c, w);
  captured.set_capture(true);
  const auto prompt = random_tokens(4, c.vocab, 4);
  uint32_t a = captured.forward_prompt(prompt), b = plain.forward_prompt(prompt);
  a = captured.forward_token(a);
  b = plain.forward_token(b);
  const std::vector<uint32_t> bad = {1, c.vocab};
  EXPECT_THROW(captured.forward_prompt(bad), ModelError);
  EXPECT_EQ(captured.position(), 5u);
  EXPECT_EQ(captured.forward_token(a), plain.forward_token(b));
  EXPECT_TRUE(same_bits(captured.logits(), plain.logits()));
}

// A command that fails validation inside the recorded program is reported with the command
// buffer's and the command's names; the runner stays usable.
TEST_F(Capture, AFailingRecordedCommandNamesItself) {
  MTL::DeviceProfile small;
  small.maxThreadgroupMemoryLength = 2048;  // decode_attention needs 3104 bytes
  auto tight = NS::TransferPtr(new MTL::Device(small));
  metalsim::ExecutionOptions one_worker = tight->executionOptions();
  one_worker.workers = 1;
  tight->setExecutionOptions(one_worker);
  const ModelConfig c = small_config();
  ModelRunner captured(tight.get(), c, generate_weights(c, 2));
  captured.set_capture(true);
  try {
    captured.forward_prompt(random_tokens(3, c.vocab, 3));
    ADD_FAILURE() << "no error";
  } catch (const ModelError& e) {
    EXPECT_EQ(int(e.kind()), int(ModelErrorKind::command_buffer));
    const std::string why = e.what();
    EXPECT_NE(why.find("indirect command buffer 'forward pass of 3 token(s)' command "),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("limit.threadgroup_memory"), std::string::npos) << why;
  }
  EXPECT_EQ(captured.position(), 0u);
}

}  // namespace
}  // namespace metalsim::model
