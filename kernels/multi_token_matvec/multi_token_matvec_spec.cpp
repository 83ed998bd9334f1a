// Specs of the multi_token_matvec family (gpu-perf-phase3): multi_token_matvec_q4_0 (=) and
// multi_token_matvec_q4_0_accumulate (+=). output [batch, out_dim] (+)= input [batch, in_dim] x
// W^T, W in GGML Q4_0 blocks, input and output float. Tolerance and sweep:
// docs/kernels/multi_token_matvec.md.
#include <algorithm>

#include "kernels/multi_token_matvec/multi_token_matvec_baseline.h"
#include "kernels/multi_token_matvec/multi_token_matvec_ref.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/spec_names.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::kernels::multi_token_matvec {
namespace {

class MultiTokenMatvecSpec : public spec::NamedSpec {
 public:
  MultiTokenMatvecSpec(std::string name, std::string summary, bool accumulate)
      : NamedSpec(std::move(name), "multi_token_matvec", std::move(summary)),
        accumulate_(accumulate) {}
  std::vector<ParamDef> params() const override {
    return {
        {"out_dim", 1, 1 << 17, {}, {1, 7, 8, 9, 33}, 9, "rows of W: output features"},
        {"in_dim", 32, 1 << 16, {}, {32, 480, 512, 544, 576}, 64, "columns of W, a multiple of 32"},
        {"batch", 1, 4096, {}, {1, 3, 4, 5, 8, 9}, 3, "tokens"},
        {"tg", 32, 1024, {}, {32, 256, 1024}, 256, "threads per threadgroup, whole simdgroups"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    std::string w;
    if (p.at("out_dim") < 1 || p.at("batch") < 1 || p.at("in_dim") < 1)
      w = "out_dim, in_dim, batch >= 1";
    else if (p.at("in_dim") % 32 != 0)
      w = "in_dim = " + std::to_string(p.at("in_dim")) +
          " is not a multiple of the 32-element Q4_0 block: a row of W cannot hold it";
    else if (p.at("tg") < 32 || p.at("tg") > 1024 || p.at("tg") % 32 != 0)
      w = "tg = " + std::to_string(p.at("tg")) + ": whole simdgroups (a multiple of 32) up to 1024";
    else if (p.at("out_dim") * p.at("in_dim") > (int64_t(1) << 26) ||
             p.at("batch") * std::max(p.at("in_dim"), p.at("out_dim")) > (int64_t(1) << 22))
      w = "W over 2^26 values or activations over 2^22 (a fuzzed case stays small)";
    if (why) *why = w;
    return w.empty();
  }
  // out_dim around the 8 rows of a threadgroup, batch around the 4-token tile, in_dim at one
  // block and around one half-block per lane (512 = 32 half-blocks), SmolLM's 576 and 1536.
  std::vector<Params> sweep() const override {
    return {{{"out_dim", 1}, {"in_dim", 32}, {"batch", 1}, {"tg", 256}},
            {{"out_dim", 7}, {"in_dim", 32}, {"batch", 1}, {"tg", 256}},
            {{"out_dim", 8}, {"in_dim", 64}, {"batch", 4}, {"tg", 256}},
            {{"out_dim", 9}, {"in_dim", 480}, {"batch", 3}, {"tg", 256}},
            {{"out_dim", 17}, {"in_dim", 512}, {"batch", 5}, {"tg", 256}},
            {{"out_dim", 33}, {"in_dim", 544}, {"batch", 9}, {"tg", 256}},
            {{"out_dim", 3}, {"in_dim", 576}, {"batch", 8}, {"tg", 32}},
            {{"out_dim", 40}, {"in_dim", 1536}, {"batch", 2}, {"tg", 1024}}};
  }
  // SmolLM-135M's projections: q (576 x 576), gate (1536 x 576), down (576 x 1536) at a
  // decode step (batch 1) and a 32-token prefill; the lm_head (49152 x 576) at batch 1.
  std::vector<Params> bench_cases() const override {
    std::vector<Params> cases;
    for (int64_t batch : {1, 32})
      for (auto [out, in] : {std::pair<int64_t, int64_t>{576, 576}, {1536, 576}, {576, 1536}})
        cases.push_back({{"out_dim", out}, {"in_dim", in}, {"batch", batch}, {"tg", 256}});
    cases.push_back({{"out_dim", 49152}, {"in_dim", 576}, {"batch", 1}, {"tg", 256}});
    return cases;
  }

  // Q4_0 weights (18 bytes per 32), the batch of inputs and outputs in float; the kept
  // weights, inputs, old outputs and the double reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t w = uint64_t(p.at("out_dim")) * uint64_t(p.at("in_dim")) * 18 / 32;
    const uint64_t x = uint64_t(p.at("batch")) * uint64_t(p.at("in_dim"));
    const uint64_t y = uint64_t(p.at("batch")) * uint64_t(p.at("out_dim"));
    return {w + 4 * x + 4 * y, w + 4 * x + (4 + 8) * y};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t out_dim = uint32_t(p.at("out_dim")), in_dim = uint32_t(p.at("in_dim"));
    const uint32_t batch = uint32_t(p.at("batch")), tg = uint32_t(p.at("tg"));
    spec::InputGenerator gen(ctx.seed());
    auto w = std::make_shared<std::vector<BlockQ4_0>>(size_t(out_dim) * in_dim / 32);
    for (BlockQ4_0& b : *w) {
      b.d = _Float16(gen.uniform(-0.05, 0.05));
      for (uint8_t& q : b.qs) q = uint8_t(gen.next_u64());
    }
    auto x = std::make_shared<std::vector<float>>(
        gen.uniform_vector<float>(size_t(batch) * in_dim, -1, 1));
    auto old = std::make_shared<std::vector<float>>(
        accumulate_ ? gen.uniform_vector<float>(size_t(batch) * out_dim, -1, 1)
                    : std::vector<float>{});
    auto ref = std::make_shared<std::vector<double>>();
    auto bw = ctx.buffer(*w), bx = ctx.buffer(*x);
    const size_t count = size_t(batch) * out_dim;
    auto out = ctx.buffer(count * sizeof(float));
    const bool accumulate = accumulate_;
    auto reset = [=] {
      if (accumulate) spec::fill(out, *old);
      else spec::poison(static_cast<float*>(out->contents()), count);
    };
    reset();
    auto c = std::make_unique<spec::StandardCase>();
    const std::string kernel = name();
    const uint32_t groups = (out_dim + tg / 32 - 1) / (tg / 32);  // one row per simdgroup
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          kernel,
          [&](auto* e) {
            spec::set_buffers(e, {bw.get(), bx.get(), out.get()});
            e->setBytes(&out_dim, 4, 3);
            e->setBytes(&in_dim, 4, 4);
            e->setBytes(&batch, 4, 5);
          },
          {groups, 1, 1}, {tg, 1, 1}, spec::CaseContext::Grid::threadgroups, r);
    };
    auto magnitude = std::make_shared<std::vector<double>>();
    c->reference = [=] {
      *ref = multi_token_matvec_ref(*w, *x, *old, out_dim, in_dim, batch);
      *magnitude = multi_token_matvec_magnitudes(*w, *x, *old, out_dim, in_dim, batch);
    };
    const Tolerance tol{0, relative_tolerance(in_dim),
                        "float accumulation over in_dim (+ the old value)"};
    c->check = [=](CaseResult& r) {
      if (accumulate)
        spec::compare_in_place("output", spec::contents<float>(out), *old, *ref, tol, r,
                               magnitude.get());
      else
        spec::compare_output_of_sums("output", spec::contents<float>(out), ref->data(), *magnitude,
                                     count, tol, r);
    };
    auto fast_out =
        std::make_shared<std::vector<float>>(accumulate ? *old : std::vector<float>(count));
    c->baseline = [=] {
      multi_token_matvec_baseline(w->data(), x->data(), fast_out->data(), out_dim, in_dim, batch,
                                  accumulate);
    };
    c->expose("output", out);
    c->poison_again = reset;
    return c;
  }

 private:
  bool accumulate_;
};

METALSIM_REGISTER_SPEC_AS(
    assign, MultiTokenMatvecSpec, "multi_token_matvec_q4_0",
    "output[t, r] = W[r, :] . input[t, :] for a batch of tokens, W in Q4_0, float in/out", false);
METALSIM_REGISTER_SPEC_AS(
    accumulate, MultiTokenMatvecSpec, "multi_token_matvec_q4_0_accumulate",
    "output[t, r] += W[r, :] . input[t, :] for a batch of tokens, W in Q4_0, float in/out", true);

}  // namespace
}  // namespace metalsim::kernels::multi_token_matvec
