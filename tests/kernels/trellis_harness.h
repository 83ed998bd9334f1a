#pragma once
// The trellis tests' one way of running a layer: through TrellisLinear (or TrellisMoE) on a
// command buffer with the given options, outputs poisoned first, then compared with the
// family's reference and its per-element bound.
#include <string>
#include <vector>

#include "kernels/spec/compare.h"
#include "kernels/trellis/trellis_compare.h"
#include "kernels/trellis/trellis_linear.h"
#include "kernels/trellis/trellis_moe.h"
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
  return NS::TransferPtr(
      device()->newBuffer(v.data(), v.size() * sizeof(half_t), MTL::ResourceStorageModeShared));
}
inline NS::SharedPtr<MTL::Buffer> poisoned(size_t count) {
  auto b =
      NS::TransferPtr(device()->newBuffer(count * sizeof(half_t), MTL::ResourceStorageModeShared));
  spec::poison(static_cast<half_t*>(b->contents()), count);
  return b;
}

// Commits `cb`; keeps its reports; copies `count` outputs; compares them with `ref`.
inline Run finish(MTL::CommandBuffer* cb, const NS::SharedPtr<MTL::Buffer>& out,
                  const Reference& ref) {
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

// h (the SwiGLU scratch between the two dispatches) is poisoned too: a row the down kernel reads
// that the gate/up kernel never wrote shows as NaN in the output.
inline Run run_moe(const MoeProblem& p, const engine::ExecutionOptions& options = checked()) {
  const MoeShape& s = p.shape;
  TrellisMoE moe(device(), p.gate, p.up, p.down, s.top_k);
  auto x = upload(p.x);
  auto ids = NS::TransferPtr(device()->newBuffer(p.routing.expert_ids.data(),
                                                 p.routing.expert_ids.size() * 4,
                                                 MTL::ResourceStorageModeShared));
  auto probs = NS::TransferPtr(device()->newBuffer(
      p.routing.probs.data(), p.routing.probs.size() * 4, MTL::ResourceStorageModeShared));
  auto h = poisoned(size_t(s.M) * s.top_k * s.intermediate);
  auto out = poisoned(size_t(s.M) * s.hidden);
  MTL::CommandBuffer* cb = queue()->commandBuffer();
  cb->setExecutionOptions(options);
  MTL::ComputeCommandEncoder* encoder = cb->computeCommandEncoder();
  moe.encode(encoder, x.get(), ids.get(), probs.get(), h.get(), out.get(), s.M);
  encoder->endEncoding();
  return finish(cb, out, moe_ref(p.x, p.routing, p.gate, p.up, p.down));
}

inline std::string describe(const Run& run) {
  std::string text = run.result.failure;
  for (const auto& r : run.result.reports) text += "\n" + r.format();
  return text;
}

}  // namespace metalsim::kernels::trellis::testing
