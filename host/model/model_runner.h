#pragma once
// A transformer run end to end by metalsim kernels through the public host API (metal-cpp's
// names): the gpu-perf-phase3 document's forward_token and forward_prompt. One command buffer
// per call; the position advances by the number of tokens. Errors (the document's table) are
// ModelError; a call that throws changes nothing and the runner stays usable.
//
//   auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
//   ModelConfig config = ModelConfig::smollm_135m();
//   ModelRunner runner(device.get(), config, generate_weights(config, 1));
//   uint32_t next = runner.forward_prompt(prompt);       // prefill, batched mat-vecs
//   for (int i = 0; i < 16; ++i) next = runner.forward_token(next);  // greedy decode
//
// With capture on (set_capture), a call of n tokens records its commands once into an
// indirect command buffer (CapturedProgram, one per n) and replays them on later calls of n
// tokens: the same kernels with the same arguments, so the same bits, without encoding.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "host/model/argument_arena.h"
#include "host/model/batch_buffers.h"
#include "host/model/captured_program.h"
#include "host/model/device_weights.h"
#include "host/model/kv_cache.h"
#include "host/model/model_config.h"
#include "host/model/model_error.h"
#include "host/model/model_kernels.h"
#include "host/model/model_weights.h"

namespace metalsim::model {

// Where one call's time went: building the command buffer on the host (encoding; with
// capture, pointing the recorded program at the position and executeCommandsInBuffer), and
// commit() (validation and the kernels: metalsim runs them inside commit).
struct CallTiming {
  double encode_seconds = 0;
  double execute_seconds = 0;
  size_t dispatches = 0;
  double record_seconds = 0;  // capture: recording this call's program (first call of its size)
};

class ModelRunner {
 public:
  // Throws std::invalid_argument when config.problem() is not empty or the weights do not have
  // the configuration's sizes; std::runtime_error when a kernel is not linked. `device` must
  // outlive the runner.
  ModelRunner(MTL::Device* device, const ModelConfig& config, const ModelWeights& weights);

  // The next token (greedy) after `token` at position(), which then advances by 1.
  uint32_t forward_token(uint32_t token);
  // The next token after the prompt, fed at position(); the position advances by its length.
  // The mat-vecs take every prompt token at once (the multi-token kernels).
  uint32_t forward_prompt(std::span<const uint32_t> tokens);

  uint32_t position() const { return position_; }
  // The last successful call's logits for its last token (vocab floats).
  std::span<const float> logits() const { return logits_; }
  const KvCache& kv_cache() const { return *cache_; }
  const ModelConfig& config() const { return config_; }
  const CallTiming& last_timing() const { return timing_; }
  // Back to position 0 with an empty cache (recorded programs are kept: they are re-pointed
  // at the cache on every replay).
  void reset();

  // Capture and replay through indirect command buffers, for the following calls.
  void set_capture(bool on) { capture_ = on; }
  bool capture() const { return capture_; }
  // How many programs capture has recorded (one per batch size used).
  size_t recorded_programs() const { return programs_.size(); }

 private:
  uint32_t run(std::span<const uint32_t> tokens);
  void check_tokens(std::span<const uint32_t> tokens) const;
  const BatchBuffers& batch_for(uint32_t tokens);
  ForwardPass pass() const;
  CapturedProgram& program_for(uint32_t tokens);
  // Encodes with `encode` (which returns how many dispatches it encoded), commits, times both.
  MTL::CommandBuffer* commit_timed(
      const std::function<size_t(MTL::ComputeCommandEncoder*)>& encode);
  MTL::CommandBuffer* encode_and_commit(const BatchBuffers& batch);
  MTL::CommandBuffer* replay_and_commit(CapturedProgram& program);

  MTL::Device* device_;
  ModelConfig config_;
  ModelKernels kernels_;
  DeviceWeights weights_;
  NS::SharedPtr<MTL::CommandQueue> queue_;
  std::unique_ptr<KvCache> cache_;
  ArgumentArena arguments_;
  std::unique_ptr<BatchBuffers> batch_;  // the last call's; reused when the next has as many tokens
  NS::SharedPtr<MTL::Buffer> logits_buffer_, result_buffer_;
  std::vector<float> logits_;
  uint32_t position_ = 0;
  CallTiming timing_;
  bool capture_ = false;
  std::map<uint32_t, std::unique_ptr<CapturedProgram>> programs_;  // by batch size
};

}  // namespace metalsim::model
