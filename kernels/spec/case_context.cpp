#include "kernels/spec/case_context.h"

#include "kernels/spec/pipeline_cache.h"

namespace metalsim::spec {

CaseContext::CaseContext(MTL::Device* device, MTL::CommandQueue* queue, PipelineCache& pipelines,
                         metalsim::ExecutionOptions options, uint64_t seed)
    : device_(device),
      queue_(queue),
      pipelines_(pipelines),
      options_(std::move(options)),
      seed_(seed) {}

MTL::ComputePipelineState* CaseContext::pipeline(const std::string& kernel) {
  return pipelines_.get(kernel);
}

MTL::CommandBuffer* CaseContext::command_buffer() {
  MTL::CommandBuffer* cb = queue_->commandBuffer();
  cb->setExecutionOptions(options_);
  return cb;
}

void CaseContext::commit(MTL::CommandBuffer* cb, CaseResult& result) {
  cb->commit();
  cb->waitUntilCompleted();
  for (const auto& r : cb->reports()) result.reports.push_back(r);
}

MTL::CommandBuffer* CaseContext::run(const std::string& kernel, const Bind& bind, MTL::Size grid,
                                     MTL::Size tg, Grid grid_kind) {
  MTL::ComputePipelineState* pso = pipeline(kernel);
  MTL::CommandBuffer* cb = command_buffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso);
  bind(enc);
  if (grid_kind == Grid::threads) enc->dispatchThreads(grid, tg);
  else enc->dispatchThreadgroups(grid, tg);
  enc->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  return cb;
}

void CaseContext::dispatch(const std::string& kernel, const Bind& bind, MTL::Size grid,
                           MTL::Size tg, Grid grid_kind, CaseResult& result) {
  MTL::CommandBuffer* cb = run(kernel, bind, grid, tg, grid_kind);
  for (const auto& r : cb->reports()) result.reports.push_back(r);
}

}  // namespace metalsim::spec
