#include "kernels/trellis/trellis_cases.h"
#include "kernels/spec/spec_names.h"

#include "kernels/spec/standard_case.h"
#include "kernels/trellis/trellis_baseline.h"
#include "kernels/trellis/trellis_compare.h"
#include "kernels/trellis/trellis_moe.h"

namespace metalsim::kernels::trellis {
namespace {

// Poisons `count` halves of `b` (outputs, and the MoE's h, so a row never written shows).
void poison_halves(const NS::SharedPtr<MTL::Buffer>& b, size_t count) {
  spec::poison(static_cast<half_t*>(b->contents()), count);
}

// Encodes through `encode` on one command buffer of the case and commits it.
template <class Encode>
void run_on_command_buffer(spec::CaseContext& ctx, spec::CaseResult& r, Encode encode) {
  MTL::CommandBuffer* cb = ctx.command_buffer();
  MTL::ComputeCommandEncoder* encoder = cb->computeCommandEncoder();
  encode(encoder);
  encoder->endEncoding();
  spec::CaseContext::commit(cb, r);
}

}  // namespace

std::unique_ptr<spec::PreparedCase> prepare_gemm_case(std::shared_ptr<const GemmProblem> problem,
                                                      TrellisKernel kernel,
                                                      spec::CaseContext& ctx) {
  const GemmShape shape = problem->shape;
  auto linear = std::make_shared<TrellisLinear>(ctx.device(), problem->weights);
  auto a = ctx.buffer(problem->a);
  const size_t count = size_t(shape.M) * shape.N;
  auto c = ctx.buffer(count * sizeof(half_t));
  poison_halves(c, count);
  auto ref = std::make_shared<Reference>();
  auto sc = std::make_unique<spec::StandardCase>();
  sc->kernel = [=, &ctx](CaseResult& r) {
    run_on_command_buffer(ctx, r,
                          [&](auto* e) { linear->encode(e, a.get(), c.get(), shape.M, kernel); });
  };
  sc->reference = [=] { *ref = gemm_ref(problem->a, shape.M, problem->weights); };
  sc->check = [=](CaseResult& r) { compare_bounded("C", spec::contents<half_t>(c), *ref, r); };
  sc->expose("C", c);
  sc->poison_again = [=] { poison_halves(c, count); };
  // Prepared on first use (a benchmark's untimed warm-up); decodes the weights on every call, as
  // the kernel does. `problem` (captured) keeps the weights it reads alive.
  auto native = std::make_shared<GemmBaselineData>();
  sc->baseline = [=] {
    if (native->c.empty())
      *native = prepare_gemm_baseline(problem->a, shape.M, problem->weights, Decode::on_the_fly);
    gemm_baseline(*native);
  };
  return sc;
}

std::unique_ptr<spec::PreparedCase> prepare_moe_case(std::shared_ptr<const MoeProblem> problem,
                                                     spec::CaseContext& ctx) {
  const MoeShape shape = problem->shape;
  auto layer = std::make_shared<TrellisMoE>(ctx.device(), problem->gate, problem->up, problem->down,
                                            shape.top_k);
  auto x = ctx.buffer(problem->x);
  auto ids = ctx.buffer(problem->routing.expert_ids), probs = ctx.buffer(problem->routing.probs);
  const size_t h_count = size_t(shape.M) * shape.top_k * shape.intermediate,
               count = size_t(shape.M) * shape.hidden;
  auto h = ctx.buffer(h_count * sizeof(half_t)), out = ctx.buffer(count * sizeof(half_t));
  auto poison_all = [=] {
    poison_halves(h, h_count);
    poison_halves(out, count);
  };
  poison_all();
  auto ref = std::make_shared<Reference>();
  auto sc = std::make_unique<spec::StandardCase>();
  sc->kernel = [=, &ctx](CaseResult& r) {
    run_on_command_buffer(ctx, r, [&](auto* e) {
      layer->encode(e, x.get(), ids.get(), probs.get(), h.get(), out.get(), shape.M);
    });
  };
  sc->reference = [=] {
    *ref = moe_ref(problem->x, problem->routing, problem->gate, problem->up, problem->down);
  };
  sc->check = [=](CaseResult& r) { compare_bounded("out", spec::contents<half_t>(out), *ref, r); };
  sc->expose("out", out);
  sc->poison_again = poison_all;
  auto native = std::make_shared<MoeBaselineData>();  // prepared on first use, as above
  sc->baseline = [=] {
    if (native->x.empty()) *native = prepare_moe_baseline(*problem, Decode::on_the_fly);
    moe_baseline(*native);
  };
  return sc;
}

}  // namespace metalsim::kernels::trellis
