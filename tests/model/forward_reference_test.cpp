// The runner against the independent Eigen reference (reference_model.h): the logits of
// forward_prompt and of token-by-token forward_token for prompts of 1, 2, 7, 8, 9 and 64
// tokens, and greedy generation of 16 tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "host/model/model_runner.h"
#include "tests/model/model_test_util.h"
#include "tests/model/reference_model.h"

namespace metalsim::model {
namespace {

using testing::logit_tolerance;
using testing::random_tokens;
using testing::relative_error;
using testing::small_config;

class ForwardReference : public ::testing::Test {
 protected:
  ForwardReference()
      : device_(testing::test_device()),
        config_(small_config()),
        weights_(generate_weights(config_, 7)),
        reference_(config_, weights_) {}

  NS::SharedPtr<MTL::Device> device_;
  ModelConfig config_;
  ModelWeights weights_;
  reference::ReferenceModel reference_;
};

TEST_F(ForwardReference, PromptLogitsMatchTheReference) {
  for (size_t n : {1, 2, 7, 8, 9, 64}) {
    const auto prompt = random_tokens(n, config_.vocab, 100 + n);
    const auto ref = reference_.run(prompt, n - 1);
    ModelRunner runner(device_.get(), config_, weights_);
    const uint32_t next = runner.forward_prompt(prompt);
    EXPECT_LE(relative_error(runner.logits(), ref.logits.back()),
              logit_tolerance(config_, uint32_t(n)))
        << "prompt of " << n;
    EXPECT_EQ(next, reference::argmax(ref.logits.back())) << "prompt of " << n;
    EXPECT_EQ(runner.position(), n);
  }
}

TEST_F(ForwardReference, TokenByTokenLogitsMatchTheReferenceAtEveryPosition) {
  const auto prompt = random_tokens(64, config_.vocab, 164);
  const auto ref = reference_.run(prompt);
  ModelRunner runner(device_.get(), config_, weights_);
  for (size_t t = 0; t < prompt.size(); ++t) {
    const uint32_t next = runner.forward_token(prompt[t]);
    ASSERT_LE(relative_error(runner.logits(), ref.logits[t]),
              logit_tolerance(config_, uint32_t(t + 1)))
        << "position " << t;
    EXPECT_EQ(next, reference::argmax(ref.logits[t])) << "position " << t;
  }
}

// Each step feeds the runner's token to both sides, so one disagreement cannot hide later ones.
// A disagreement is a failure unless the reference's two candidates are closer than the
// tolerance (a tie that float rounding may decide either way); such a step is reported, and
// the 16 tokens must then equal the reference's own greedy generation.
TEST_F(ForwardReference, GreedyGenerationOf16TokensEqualsTheReference) {
  const auto prompt = random_tokens(9, config_.vocab, 9);
  ModelRunner runner(device_.get(), config_, weights_);
  std::vector<uint32_t> sequence = prompt, generated;
  uint32_t next = runner.forward_prompt(prompt);
  int ties = 0;
  for (int step = 0; step < 16; ++step) {
    const auto ref = reference_.run(sequence, sequence.size() - 1).logits.back();
    const uint32_t expected = reference::argmax(ref);
    if (next != expected) {
      double scale = 0;
      for (double v : ref) scale = std::fmax(scale, std::fabs(v));
      EXPECT_LE(ref[expected] - ref[next],
                logit_tolerance(config_, uint32_t(sequence.size())) * scale)
          << "step " << step << ": runner chose " << next << ", reference " << expected;
      std::printf("step %d: a near tie, runner %u, reference %u\n", step, next, expected);
      ++ties;
    }
    generated.push_back(next);
    sequence.push_back(next);
    if (step + 1 < 16) next = runner.forward_token(next);
  }
  EXPECT_EQ(runner.position(), prompt.size() + 15);
  // Not a fixed point (a token predicting itself): 16 decisions, not one repeated.
  std::sort(generated.begin(), generated.end());
  const auto distinct = std::unique(generated.begin(), generated.end()) - generated.begin();
  EXPECT_GE(distinct, 8);
  generated.assign(sequence.begin() + long(prompt.size()), sequence.end());
  if (ties == 0) {
    EXPECT_EQ(generated, reference_.generate(prompt, 16));
  }
}

}  // namespace
}  // namespace metalsim::model
