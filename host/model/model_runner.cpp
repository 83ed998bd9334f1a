#include "host/model/model_runner.h"

#include <chrono>
#include <cstring>
#include <stdexcept>

#include "host/model/command_sink.h"
#include "host/model/forward_pass.h"
#include "host/model/make_kv_cache.h"

namespace metalsim::model {
namespace {

const ModelConfig& checked(const ModelConfig& config) {
  if (const std::string p = config.problem(); !p.empty())
    throw std::invalid_argument("model config: " + p);
  return config;
}

const ModelWeights& matching(const ModelWeights& w, const ModelConfig& c) {
  const bool ok =
      w.layers.size() == c.layers && w.embedding.size() == size_t(c.vocab) * c.hidden / 32 &&
      w.final_norm.size() == c.hidden &&
      (w.layers.empty() || w.layers[0].down.size() == size_t(c.hidden) * c.intermediate / 32);
  if (!ok) throw std::invalid_argument("model weights do not have the sizes of " + c.describe());
  return w;
}

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

ModelRunner::ModelRunner(MTL::Device* device, const ModelConfig& config,
                         const ModelWeights& weights)
    : device_(device),
      config_(checked(config)),
      kernels_(device),
      weights_(device, matching(weights, config)),
      queue_(NS::TransferPtr(device->newCommandQueue())),
      cache_(make_kv_cache(device, config)),
      arguments_(device),
      logits_buffer_(NS::TransferPtr(
          device->newBuffer(config.vocab * sizeof(float), MTL::ResourceStorageModeShared))),
      result_buffer_(
          NS::TransferPtr(device->newBuffer(sizeof(uint32_t), MTL::ResourceStorageModeShared))) {
  logits_buffer_->setLabel(NS::String::string("logits", NS::UTF8StringEncoding));
}

uint32_t ModelRunner::forward_token(uint32_t token) {
  return run(std::span<const uint32_t>(&token, 1));
}

uint32_t ModelRunner::forward_prompt(std::span<const uint32_t> tokens) {
  if (tokens.empty())
    throw ModelError(ModelErrorKind::empty_prompt, "forward_prompt: empty prompt");
  return run(tokens);
}

void ModelRunner::reset() {
  cache_ = make_kv_cache(device_, config_);
  position_ = 0;
  logits_.clear();
}

void ModelRunner::check_tokens(std::span<const uint32_t> tokens) const {
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] >= config_.vocab)
      throw ModelError(ModelErrorKind::token_out_of_range,
                       "token id " + std::to_string(tokens[i]) + " at index " + std::to_string(i) +
                           " of the call is out of range: the vocabulary has " +
                           std::to_string(config_.vocab) + " ids (0.." +
                           std::to_string(config_.vocab - 1) + ")");
}

const BatchBuffers& ModelRunner::batch_for(uint32_t tokens) {
  if (!batch_ || batch_->tokens != tokens)
    batch_ = std::make_unique<BatchBuffers>(device_, config_, tokens);
  return *batch_;
}

ForwardPass ModelRunner::pass() const {
  return {config_, kernels_, weights_, *cache_, logits_buffer_.get(), result_buffer_.get()};
}

MTL::CommandBuffer* ModelRunner::commit_timed(
    const std::function<size_t(MTL::ComputeCommandEncoder*)>& encode) {
  const auto t0 = std::chrono::steady_clock::now();
  MTL::CommandBuffer* cb = queue_->commandBuffer();
  MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
  const size_t dispatches = encode(e);
  e->endEncoding();
  const auto t1 = std::chrono::steady_clock::now();
  cb->commit();
  cb->waitUntilCompleted();
  timing_.encode_seconds = seconds_between(t0, t1);
  timing_.execute_seconds = seconds_between(t1, std::chrono::steady_clock::now());
  timing_.dispatches = dispatches;
  return cb;
}

MTL::CommandBuffer* ModelRunner::encode_and_commit(const BatchBuffers& batch) {
  return commit_timed([&](MTL::ComputeCommandEncoder* encoder) {
    EncoderSink sink(encoder);
    arguments_.reset();
    pass().encode({sink, arguments_}, batch, position_);
    return sink.dispatches();
  });
}

// Records the forward pass of `tokens` tokens once: a count to size the indirect command
// buffer, then the same encode into its commands, noting what depends on the position.
CapturedProgram& ModelRunner::program_for(uint32_t tokens) {
  std::unique_ptr<CapturedProgram>& program = programs_[tokens];
  if (program) return *program;
  const auto t0 = std::chrono::steady_clock::now();
  auto p = std::make_unique<CapturedProgram>(device_, config_, tokens);
  CountingSink counter;
  pass().encode({counter, p->arguments}, p->batch, position_);
  p->arguments.reset();
  p->commands = IndirectSink::make_commands(device_, counter.dispatches());
  p->commands->setLabel(
      NS::String::string(("forward pass of " + std::to_string(tokens) + " token(s)").c_str()));
  IndirectSink sink(p->commands.get());
  pass().encode({sink, p->arguments}, p->batch, position_, &p->patches);
  program = std::move(p);
  timing_.record_seconds = seconds_between(t0, std::chrono::steady_clock::now());
  return *program;
}

MTL::CommandBuffer* ModelRunner::replay_and_commit(CapturedProgram& program) {
  return commit_timed([&](MTL::ComputeCommandEncoder* encoder) {
    pass().repoint(program.patches, program.commands.get(), position_);
    encoder->executeCommandsInBuffer(program.commands.get(),
                                     NS::Range::Make(0, program.commands->size()));
    return program.commands->size();
  });
}

uint32_t ModelRunner::run(std::span<const uint32_t> tokens) {
  check_tokens(tokens);
  const auto n = uint32_t(tokens.size());
  cache_->reserve(position_, n);  // throws kv_capacity before anything changes
  timing_ = {};
  CapturedProgram* program = capture_ ? &program_for(n) : nullptr;
  const BatchBuffers& batch = program ? program->batch : batch_for(n);
  std::memcpy(batch.token_ids->contents(), tokens.data(), n * sizeof(uint32_t));
  const KvCache::Saved saved = cache_->save(position_, n);
  MTL::CommandBuffer* cb = program ? replay_and_commit(*program) : encode_and_commit(batch);
  if (cb->status() != MTL::CommandBufferStatusCompleted) {
    cache_->restore(saved);
    const std::string why =
        cb->error() ? cb->error()->localizedDescription()->utf8String() : "unknown error";
    throw ModelError(ModelErrorKind::command_buffer,
                     "forward pass of " + std::to_string(n) + " token(s) at position " +
                         std::to_string(position_) + " failed: " + why);
  }
  const float* device_logits = static_cast<const float*>(logits_buffer_->contents());
  logits_.assign(device_logits, device_logits + config_.vocab);
  position_ += n;
  return *static_cast<const uint32_t*>(result_buffer_->contents());
}

}  // namespace metalsim::model
