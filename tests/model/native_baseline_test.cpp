// The model runner's native baseline (bench/baseline/model_baseline.h), a speed yardstick, held
// to the independent reference (reference_model.h, double) within a float bound, and its greedy
// tokens to the runner's: prefill in one call and in several (the causal offset of a later call),
// decode token by token, on ModelConfig::small() and on a configuration whose projections end in
// partial panels, with the fixed-seed generated weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "bench/baseline/model_baseline.h"
#include "host/model/model_runner.h"
#include "tests/model/model_test_util.h"
#include "tests/model/reference_model.h"

namespace metalsim::model {
namespace {

using baseline::NativeModel;
using testing::random_tokens;
using testing::relative_error;

// The baseline's logits against the reference's, relative to max |ref| (docs/performance.md,
// "The model runner's native baseline"): the float rounding of every stage a token goes through,
// each in units of u = 2^-24 relative to the scale of that stage's output, added over the
// layers. A float sum of n terms, in any order, with or without FMA, is within n u of the exact
// sum's scale (gamma_n); Eigen's blocked products and the baseline's 8-wide accumulators only
// change the order.
//   RMSNorm        hidden (the sum of squares) + 4 (mean, sqrt, divide, two products)
//   projections    their in_dim: hidden for Q, K, V, gate and up; q_dim for O; intermediate for
//                  down
//   RoPE           8 per position: the angle position * freq in float, freq from powf (the
//                  kernels' budget, logit_tolerance's)
//   attention      head_dim (Q K^T), positions (softmax's sum) + positions (P V), 8 (exp,
//                  max, divide, scale)
//   SwiGLU         8 (exp, add, divide, product)
// and once at the end the final RMSNorm and the lm_head (hidden). 1.0e-4 for the small model at
// 25 positions; measured errors are about 100x smaller, and a wrong position, mask or token
// moves the logits by 30% of their scale (docs/pipeline.md, "Tolerance").
double native_tolerance(const ModelConfig& c, uint32_t positions) {
  const double norm = double(c.hidden) + 4;
  const double projections = 3.0 * c.hidden + c.q_dim() + c.intermediate;
  const double attention = double(c.head_dim) + 2.0 * positions + 8;
  const double rope = 8.0 * positions;
  const double layer = 2 * norm + projections + attention + rope + 8;
  return (layer * c.layers + norm + c.hidden) * 0x1p-24;
}

// Sizes that leave a partial panel of 32 rows (K and V: 48 rows), a vocabulary that is no
// multiple of 8 or 32 (300) and a GQA group of 2.
ModelConfig ragged_config() {
  ModelConfig c = testing::small_config();
  c.hidden = 96;
  c.heads = 6;
  c.kv_heads = 3;
  c.head_dim = 16;
  c.intermediate = 160;
  c.vocab = 300;
  c.layers = 3;
  return c;
}

class NativeBaseline : public ::testing::TestWithParam<bool> {
 protected:
  NativeBaseline()
      : config_(GetParam() ? ragged_config() : testing::small_config()),
        weights_(generate_weights(config_, 1)),
        reference_(config_, weights_) {}

  // The reference's logits after the last of `sequence`.
  std::vector<double> reference_logits(std::span<const uint32_t> sequence) const {
    return reference_.run(sequence, sequence.size() - 1).logits.back();
  }

  ModelConfig config_;
  ModelWeights weights_;
  reference::ReferenceModel reference_;
};

// A prompt of 9 in one call, then 16 tokens decoded, each the baseline's own argmax: every step's
// logits within the bound, every argmax the reference's.
TEST_P(NativeBaseline, PrefillAndDecodeLogitsMatchTheReference) {
  NativeModel native(config_, weights_, 2);
  std::vector<uint32_t> sequence = random_tokens(9, config_.vocab, 11);
  uint32_t next = native.forward_prompt(sequence);
  double worst = 0;
  for (int step = 0; step <= 16; ++step) {
    const auto ref = reference_logits(sequence);
    const double error = relative_error(native.logits(), ref);
    worst = std::max(worst, error);
    ASSERT_LE(error, native_tolerance(config_, uint32_t(sequence.size()))) << "step " << step;
    EXPECT_EQ(next, reference::argmax(ref)) << "step " << step;
    ASSERT_EQ(native.position(), sequence.size());
    if (step == 16) break;
    sequence.push_back(next);
    next = native.forward_token(next);
  }
  std::printf("worst relative error %.3g (bound %.3g)\n", worst,
              native_tolerance(config_, uint32_t(sequence.size())));
}

// A prompt of 25 fed in calls of 5, 1, 12 and 7 tokens: each later call's queries see the cached
// keys of the earlier ones and, causally, their own.
TEST_P(NativeBaseline, PrefillInSeveralCallsMatchesTheReference) {
  const auto prompt = random_tokens(25, config_.vocab, 25);
  for (int threads : {1, 2}) {
    NativeModel native(config_, weights_, threads);
    size_t fed = 0;
    for (size_t count : {5, 1, 12, 7}) {
      const uint32_t next = native.forward_prompt(std::span(prompt).subspan(fed, count));
      fed += count;
      const auto ref = reference_logits(std::span(prompt).first(fed));
      EXPECT_LE(relative_error(native.logits(), ref), native_tolerance(config_, uint32_t(fed)))
          << threads << " threads, after " << fed << " tokens";
      EXPECT_EQ(next, reference::argmax(ref)) << threads << " threads, after " << fed;
    }
    native.reset();
    EXPECT_EQ(native.position(), 0u);
    native.forward_prompt(std::span(prompt).first(3));
    EXPECT_LE(relative_error(native.logits(), reference_logits(std::span(prompt).first(3))),
              native_tolerance(config_, 3))
        << "after reset";
  }
}

// The runner and the baseline greedy from the same prompt, both fed the runner's token at every
// step: the same 1 + 16 decisions.
TEST_P(NativeBaseline, GreedyTokensEqualTheRunners) {
  auto device = testing::test_device();
  ModelRunner runner(device.get(), config_, weights_);
  NativeModel native(config_, weights_, 2);
  const auto prompt = random_tokens(9, config_.vocab, 9);
  uint32_t expected = runner.forward_prompt(prompt);
  EXPECT_EQ(native.forward_prompt(prompt), expected) << "after the prompt";
  for (int step = 0; step < 16; ++step) {
    const uint32_t token = expected;
    expected = runner.forward_token(token);
    EXPECT_EQ(native.forward_token(token), expected) << "step " << step;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, NativeBaseline, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& config) {
                           return config.param ? std::string("Ragged") : std::string("Small");
                         });

TEST(NativeBaselineErrors, RefusesWhatItDoesNotModel) {
  ModelConfig c = testing::small_config();
  const ModelWeights weights = generate_weights(c, 1);
  NativeModel native(c, weights, 1);
  EXPECT_THROW(native.forward_token(c.vocab), std::out_of_range);
  EXPECT_THROW(native.forward_prompt({}), std::invalid_argument);
  const auto full = random_tokens(c.max_context, c.vocab, 3);
  native.forward_prompt(full);
  EXPECT_THROW(native.forward_token(0), std::out_of_range);
  EXPECT_EQ(native.position(), c.max_context);
  c.kv_cache = KvCacheKind::rotating;
  c.window = 8;
  EXPECT_THROW(NativeModel(c, weights, 1), std::invalid_argument);
}

}  // namespace
}  // namespace metalsim::model
