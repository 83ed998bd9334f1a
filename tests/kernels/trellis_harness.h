#pragma once
// The trellis tests run a layer as every other case runs: the family's prepared case
// (kernels/trellis/trellis_cases.h: TrellisLinear or TrellisMoE on a command buffer with the given
// options, outputs poisoned first, the reference and its per-element bound) on the case runner's
// device, through CaseRunner::execute. Their problems are built (and often corrupted) by the test
// itself, so a problem goes in where a spec would take parameters.
#include <memory>
#include <string>
#include <vector>

#include "kernels/spec/case_runner.h"
#include "kernels/spec/compare.h"
#include "kernels/trellis/trellis_cases.h"
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
inline metalsim::ExecutionOptions checked() {
  metalsim::ExecutionOptions o;
  o.checks = metalsim::CheckSet::all();
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

// Runs a prepared case (kernel, reference, comparison) and copies its one output.
inline Run execute(spec::PreparedCase& c) {
  Run run;
  run.result = spec::CaseRunner::execute(c);
  const spec::PreparedCase::OutputView view = c.outputs().front();
  const auto* out = static_cast<const half_t*>(view.data);
  run.out.assign(out, out + view.bytes / sizeof(half_t));
  return run;
}

inline Run run_linear(const GemmProblem& p, TrellisKernel kernel = TrellisKernel::automatic,
                      const metalsim::ExecutionOptions& options = checked()) {
  auto ctx = spec::CaseRunner::shared().context(options, 1);
  auto c = prepare_gemm_case(std::make_shared<const GemmProblem>(p), kernel, *ctx);
  return execute(*c);
}

inline Run run_moe(const MoeProblem& p, const metalsim::ExecutionOptions& options = checked()) {
  auto ctx = spec::CaseRunner::shared().context(options, 1);
  auto c = prepare_moe_case(std::make_shared<const MoeProblem>(p), *ctx);
  return execute(*c);
}

inline std::string describe(const Run& run) {
  std::string text = run.result.failure;
  for (const auto& r : run.result.reports) text += "\n" + r.format();
  return text;
}

}  // namespace metalsim::kernels::trellis::testing
