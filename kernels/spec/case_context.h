#pragma once
// What a spec's prepared case uses to reach the device: buffers, pipelines, and command buffers
// that carry this run's execution options (set per command buffer, never on the shared
// Device). Made by the CaseRunner for one run of one case; it outlives the prepared case.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/spec/spec.h"
#include "metalsim/Metal.hpp"

namespace metalsim::spec {

class PipelineCache;  // case_runner.h

class CaseContext {
 public:
  CaseContext(MTL::Device* device, MTL::CommandQueue* queue, PipelineCache& pipelines,
              metalsim::ExecutionOptions options, uint64_t seed);
  CaseContext(const CaseContext&) = delete;
  CaseContext& operator=(const CaseContext&) = delete;

  uint64_t seed() const { return seed_; }  // the inputs' seed
  const metalsim::ExecutionOptions& options() const { return options_; }
  // Changes apply to the command buffers made after them.
  metalsim::ExecutionOptions& mutable_options() { return options_; }

  MTL::Device* device() const { return device_; }
  // Throws std::runtime_error naming a kernel that is not linked.
  MTL::ComputePipelineState* pipeline(const std::string& kernel);

  template <class T>
  NS::SharedPtr<MTL::Buffer> buffer(const std::vector<T>& data) {
    return NS::TransferPtr(
        device_->newBuffer(data.data(), data.size() * sizeof(T), MTL::ResourceStorageModeShared));
  }
  NS::SharedPtr<MTL::Buffer> buffer(size_t bytes) {
    return NS::TransferPtr(device_->newBuffer(bytes, MTL::ResourceStorageModeShared));
  }

  // A command buffer whose dispatches run under options().
  MTL::CommandBuffer* command_buffer();
  // Commits `cb`, waits, and appends its reports to `result`.
  static void commit(MTL::CommandBuffer* cb, CaseResult& result);

  // How a dispatch gives its grid: in threadgroups, or in threads (partial edge threadgroups).
  enum class Grid { threadgroups, threads };
  using Bind = std::function<void(MTL::ComputeCommandEncoder*)>;
  // Encodes one dispatch of `kernel` (bind sets its arguments), commits and waits; returns the
  // finished command buffer (autoreleased by the queue).
  MTL::CommandBuffer* run(const std::string& kernel, const Bind& bind, MTL::Size grid, MTL::Size tg,
                          Grid grid_kind = Grid::threadgroups);
  // The same, keeping the command buffer's reports in `result`.
  void dispatch(const std::string& kernel, const Bind& bind, MTL::Size grid, MTL::Size tg,
                Grid grid_kind, CaseResult& result);

 private:
  MTL::Device* device_;
  MTL::CommandQueue* queue_;
  PipelineCache& pipelines_;
  metalsim::ExecutionOptions options_;
  uint64_t seed_;
};

}  // namespace metalsim::spec
