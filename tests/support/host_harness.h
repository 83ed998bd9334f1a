#pragma once
// Dispatching one kernel from a test: the case runner's CaseContext (kernels/spec/), with every
// check but the schedule comparison on, so tests dispatch exactly as the specs and the program
// do. Options are per harness (they travel with each command buffer).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/spec/case_runner.h"

namespace metalsim::testing {

class Harness {
 public:
  Harness() : ctx_(spec::CaseRunner::shared().context(checked_options(), 1)) {}

  MTL::Device* device() { return ctx_->device(); }
  metalsim::ExecutionOptions& options() { return ctx_->mutable_options(); }

  template <class T>
  NS::SharedPtr<MTL::Buffer> buffer(const std::vector<T>& data) {
    return ctx_->buffer(data);
  }
  NS::SharedPtr<MTL::Buffer> buffer(size_t bytes) { return ctx_->buffer(bytes); }

  NS::SharedPtr<MTL::ComputePipelineState> pipeline(const char* kernel) {
    return NS::RetainPtr(ctx_->pipeline(kernel));
  }

  // Encodes with `bind`, dispatches threadgroups (or threads), commits, waits.
  MTL::CommandBuffer* run(const char* kernel,
                          const std::function<void(MTL::ComputeCommandEncoder*)>& bind,
                          MTL::Size grid, MTL::Size tg, bool by_threads = false) {
    using Grid = spec::CaseContext::Grid;
    return ctx_->run(kernel, bind, grid, tg, by_threads ? Grid::threads : Grid::threadgroups);
  }

  static std::string reports(const MTL::CommandBuffer* cb) {
    std::string text;
    for (const auto& r : cb->reports()) text += r.format();
    return text;
  }
  // How many of the command buffer's reports are of check `id`.
  static size_t count(const MTL::CommandBuffer* cb, report::CheckId id) {
    size_t n = 0;
    for (const auto& r : cb->reports()) n += r.check == id;
    return n;
  }

 private:
  static metalsim::ExecutionOptions checked_options() {
    metalsim::ExecutionOptions o;
    o.checks = metalsim::CheckSet::all();
    o.checks.race = false;
    return o;
  }
  std::unique_ptr<spec::CaseContext> ctx_;
};

}  // namespace metalsim::testing
