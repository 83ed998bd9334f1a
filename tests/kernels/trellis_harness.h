#pragma once
// The trellis tests' one way of running a layer: through TrellisLinear (or TrellisMoE) on a
// command buffer with the given options, outputs poisoned first, then compared with the
// family's reference and its per-element bound.
#include <string>
#include <vector>

#include "kernels/spec/compare.h"
#include "kernels/trellis/trellis_compare.h"
#include "kernels/trellis/trellis_linear.h"
#include "kernels/trellis/trellis_problem.h"
#include "metalsim/Metal.hpp"

namespace metalsim::kernels::trellis::testing {

struct Run {
  spec::CaseResult result;
  std::vector<half_t> out;
};

inline MTL::Device* device() {
  static NS::SharedPtr<MTL::Device> d = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  return d.get();
}
inline MTL::CommandQueue* queue() {
  static NS::SharedPtr<MTL::CommandQueue> q = NS::TransferPtr(device()->newCommandQueue());
  return q.get();
}

// Every check but the race check (schedule fuzzing has its own tests).
inline engine::ExecutionOptions checked() {
  engine::ExecutionOptions o;
  o.checks = check::CheckSet::all();
  o.checks.race = false;
  return o;
}

inline NS::SharedPtr<MTL::Buffer> upload(const std::vector<half_t>& v) {
  return NS::TransferPtr(device()->newBuffer(v.data(), v.size() * sizeof(half_t), MTL::ResourceStorageModeShared));
}
inline NS::SharedPtr<MTL::Buffer> poisoned(size_t count) {
  auto b = NS::TransferPtr(device()->newBuffer(count * sizeof(half_t), MTL::ResourceStorageModeShared));
  spec::poison(static_cast<half_t*>(b->contents()), count);
  return b;
}

// Commits `cb`; keeps its reports; copies `count` outputs; compares them with `ref`.
inline Run finish(MTL::CommandBuffer* cb, const NS::SharedPtr<MTL::Buffer>& out, const Reference& ref) {
  cb->commit();
  cb->waitUntilCompleted();
  Run run;
  for (const auto& r : cb->reports()) run.result.reports.push_back(r);
  const half_t* c = static_cast<const half_t*>(out->contents());
  run.out.assign(c, c + ref.value.size());
  compare_bounded("C", run.out.data(), ref, run.result);
  spec::finish(run.result);
  return run;
}

inline Run run_linear(const GemmProblem& p, TrellisKernel kernel = TrellisKernel::automatic,
                      const engine::ExecutionOptions& options = checked()) {
  TrellisLinear linear(device(), p.weights);
  auto a = upload(p.a);
  auto c = poisoned(size_t(p.shape.M) * p.shape.N);
  MTL::CommandBuffer* cb = queue()->commandBuffer();
  cb->setExecutionOptions(options);
  MTL::ComputeCommandEncoder* encoder = cb->computeCommandEncoder();
  linear.encode(encoder, a.get(), c.get(), p.shape.M, kernel);
  encoder->endEncoding();
  return finish(cb, c, gemm_ref(p.a, p.shape.M, p.weights));
}

inline std::string describe(const Run& run) {
  std::string text = run.result.failure;
  for (const auto& r : run.result.reports) text += "\n" + r.format();
  return text;
}

}  // namespace metalsim::kernels::trellis::testing
