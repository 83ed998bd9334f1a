// Specs of the element-wise family: silu, gelu (in place), multiply, swiglu, rms_norm
// (+ plus_one, + as_documented), rope (+ as_documented). Tolerances: docs/kernels/elementwise.md.
#include <algorithm>
#include <cmath>

#include "kernels/elementwise/elementwise_cases.h"
#include "kernels/elementwise/rms_norm_tolerance.h"
#include "kernels/spec/spec_names.h"

namespace metalsim::kernels::elementwise {
namespace {

ParamDef tg_param(int64_t fallback) {
  return {"tg", 1, 1024, {}, {1, 31, 32, 33, 256, 1024}, fallback, "threads per threadgroup"};
}

// Half output of a float computation: one half ulp at the output scale, plus a few float ulps.
Tolerance activation_tolerance() {
  return {0x1p-19, 0x1p-11 + 0x1p-18,
          "half output: half ulp of the output scale + float math error; abs: GELU's 1 + tanh(u) "
          "cancels for u << 0 (absolute error ~|x| * 2^-24)"};
}

// ------------------------------ one thread per element: the parameters silu, gelu, multiply
// and swiglu share
class PerElementSpec : public spec::NamedSpec {
 public:
  PerElementSpec(std::string name, std::string summary)
      : NamedSpec(std::move(name), "elementwise", std::move(summary)) {}
  std::vector<ParamDef> params() const override {
    return {{"count", 1, 1 << 24, {}, {1, 31, 32, 33, 1000}, 1000, "elements"}, tg_param(256)};
  }
  bool valid(const Params& p, std::string* why) const override {
    if (p.at("count") < 1 || p.at("tg") < 1 || p.at("tg") > 1024) {
      if (why) *why = "count >= 1 and 1 <= tg <= 1024";
      return false;
    }
    return true;
  }
};

// ------------------------------ silu, gelu: in place
class ActivationSpec : public PerElementSpec {
 public:
  using Ref = std::vector<double> (*)(const std::vector<half_t>&);
  using Baseline = void (*)(const half_t*, half_t*, size_t);
  ActivationSpec(std::string name, std::string summary, Ref ref, Baseline fast)
      : PerElementSpec(std::move(name), std::move(summary)), ref_(ref), fast_(fast) {}
  std::vector<Params> sweep() const override {
    return {{{"count", 1}, {"tg", 1}},
            {{"count", 31}, {"tg", 32}},
            {{"count", 33}, {"tg", 32}},
            {{"count", 1000}, {"tg", 33}},
            {{"count", 1025}, {"tg", 1024}}};
  }
  std::vector<Params> bench_cases() const override {
    return {{{"count", 4096 * 4096}, {"tg", 256}}};
  }

  // x in place (half); the input kept, the double reference, the in-place comparison's copy.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("count"));
    return {2 * n, (2 + 8 + 2) * n};
  }

  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t count = uint32_t(p.at("count"));
    const uint32_t tg = uint32_t(p.at("tg"));
    spec::InputGenerator gen(ctx.seed());
    auto c = std::make_unique<spec::StandardCase>();
    auto input = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(count, -10, 10));
    auto ref = std::make_shared<std::vector<double>>();
    auto x = ctx.buffer(*input);
    auto bind = [=](MTL::ComputeCommandEncoder* e) {
      e->setBuffer(x.get(), 0, 0);
      e->setBytes(&count, sizeof count, 1);
    };
    c->kernel = spec::one_dispatch(ctx, name(), bind, {count, 1, 1}, {tg, 1, 1},
                                   spec::CaseContext::Grid::threads);
    c->reference = [=, ref_fn = ref_] { *ref = ref_fn(*input); };
    c->check = [=](CaseResult& r) {
      spec::compare_in_place("x", spec::contents<half_t>(x), *input, *ref, activation_tolerance(),
                             r);
    };
    c->expose("x", x);
    c->poison_again = [=] { spec::fill(x, *input); };
    auto fast_out = std::make_shared<std::vector<half_t>>(count);
    c->baseline = [=, f = fast_] { f(input->data(), fast_out->data(), count); };
    return c;
  }

 private:
  Ref ref_;
  Baseline fast_;
};

// ------------------------------ multiply, swiglu: two inputs, one output
class BinarySpec : public PerElementSpec {
 public:
  using Ref = BinaryRef;
  using Baseline = BinaryBaseline;
  BinarySpec(std::string name, std::string summary, Ref ref, Baseline fast)
      : PerElementSpec(std::move(name), std::move(summary)), ref_(ref), fast_(fast) {}
  std::vector<Params> sweep() const override { return binary_sweep(); }
  std::vector<Params> bench_cases() const override {
    return {{{"count", 4096 * 11008}, {"tg", 256}}};
  }

  // a, b and out (half); a and b kept, the double reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("count"));
    return {6 * n, (4 + 8) * n};
  }

  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    return prepare_binary<half_t>({name(), uint32_t(p.at("count")), uint32_t(p.at("tg")), ref_,
                                   activation_tolerance(), fast_},
                                  ctx);
  }

 private:
  Ref ref_;
  Baseline fast_;
};

// ------------------------------ rms_norm: one threadgroup per row
class RmsNormSpec : public spec::NamedSpec {
 public:
  RmsNormSpec(std::string name, std::string summary, double weight_offset, bool documented)
      : NamedSpec(std::move(name), "elementwise", std::move(summary)),
        weight_offset_(weight_offset),
        documented_(documented) {}
  std::vector<ParamDef> params() const override {
    return {
        {"rows", 1, 1 << 16, {}, {1, 2, 3}, 2, "rows (tokens), one threadgroup each"},
        {"hidden", 1, 1 << 16, {}, {1, 255, 256, 257, 4096}, 256, "hidden_dim"},
        tg_param(256),
        {"shared_floats", 0, 8192, {}, {0, 256}, 0, "threadgroup(0) floats; 0: one per thread"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    if (p.at("rows") < 1 || p.at("hidden") < 1 || p.at("tg") < 1 || p.at("tg") > 1024) {
      if (why) *why = "rows, hidden >= 1 and 1 <= tg <= 1024";
      return false;
    }
    if (p.at("shared_floats") != 0 && p.at("shared_floats") < p.at("tg")) {
      if (why) *why = "shared_floats: 0 or at least tg";
      return false;
    }
    return true;
  }
  // The smallest cases that show each finding (docs/findings/elementwise.md).
  std::vector<spec::Finding> findings() const override {
    if (!documented_) return {};
    return {{{{"rows", 1}, {"hidden", 1}, {"tg", 1}},
             "bounds.threadgroup",
             "the tree reads shared[128]"},
            {{{"rows", 1}, {"hidden", 129}, {"tg", 128}, {"shared_floats", 256}},
             "uninit.threadgroup",
             "stride 256 with 128 threads skips elements; the tree adds slots no thread wrote"}};
  }
  std::vector<Params> sweep() const override {
    if (documented_) return finding_cases();
    std::vector<Params> cases = rms_norm_sweep_start();
    cases.push_back(kRmsNormWideRow);
    cases.push_back({{"rows", 2}, {"hidden", 300}, {"tg", 200}});
    return cases;
  }
  std::vector<Params> bench_cases() const override {
    return {{{"rows", 4096}, {"hidden", 4096}, {"tg", 256}}};
  }
  std::string known_bug() const override {
    return documented_
               ? "strides of 256 and a tree from 128 whatever the threadgroup size: tg < 256 "
                 "skips elements and reads threadgroup memory past the threads' slots"
               : "";
  }

  // x, weight and output (half); inputs kept and the double reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("rows")) * uint64_t(p.at("hidden"));
    const uint64_t w = uint64_t(p.at("hidden"));
    return {4 * n + 2 * w, (2 + 8) * n + 2 * w};
  }

  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t hidden = uint32_t(p.at("hidden")), tg = uint32_t(p.at("tg"));
    const Tolerance tol = rms_norm_tolerance(hidden);
    return prepare_rms_norm<half_t>(
        {name(), uint32_t(p.at("rows")), hidden, tg,
         p.at("shared_floats") ? uint32_t(p.at("shared_floats")) : tg, 1e-6f, weight_offset_, tol},
        ctx);
  }

 private:
  double weight_offset_;
  bool documented_;
};

// ------------------------------ rope: Q and K in place
class RopeSpec : public spec::NamedSpec {
 public:
  RopeSpec(std::string name, std::string summary, bool documented)
      : NamedSpec(std::move(name), "elementwise", std::move(summary)), documented_(documented) {}
  std::vector<ParamDef> params() const override {
    return {{"seq", 1, 1 << 14, {}, {1, 3}, 3, "tokens"},
            {"q_heads", 1, 128, {}, {1, 4}, 4, "query heads"},
            {"kv_heads", 1, 128, {}, {1, 4}, 4, "key heads (GQA: fewer than q_heads)"},
            {"head_dim", 2, 256, {}, {2, 64, 128}, 64, "even"},
            {"offset", 0, 1 << 20, {}, {0, 7, 4096}, 0, "position_offset (tokens in the KV cache)"},
            {"theta", 1, 10000000, {}, {10000, 1000000}, 10000, "theta_base"},
            tg_param(32)};
  }
  bool valid(const Params& p, std::string* why) const override {
    std::string w;
    if (p.at("head_dim") < 2 || p.at("head_dim") % 2 != 0) w = "head_dim must be even";
    else if (p.at("seq") < 1 || p.at("q_heads") < 1 || p.at("kv_heads") < 1)
      w = "seq, q_heads, kv_heads >= 1";
    else if (p.at("tg") < 1 || p.at("tg") > 1024) w = "1 <= tg <= 1024";
    else if (p.at("theta") < 1 || p.at("offset") < 0) w = "theta >= 1, offset >= 0";
    if (why) *why = w;
    return w.empty();
  }
  // Grouped-query attention: K has fewer heads than Q (docs/findings/elementwise.md).
  std::vector<spec::Finding> findings() const override {
    if (!documented_) return {};
    return {{{{"seq", 1}, {"q_heads", 2}, {"kv_heads", 1}, {"head_dim", 8}, {"tg", 1}},
             "bounds.device",
             "K rotated with Q's head count: writes past k"},
            {{{"seq", 2}, {"q_heads", 2}, {"kv_heads", 1}, {"head_dim", 2}, {"tg", 1}},
             "unwritten",
             "token 1's K rows rotated as token 0's head 1"}};
  }
  std::vector<Params> sweep() const override {
    if (documented_) return finding_cases();
    std::vector<Params> cases = rope_sweep_start();
    cases.push_back({{"seq", 5}, {"q_heads", 2}, {"kv_heads", 2}, {"head_dim", 6}, {"tg", 1024}});
    return cases;
  }
  std::vector<Params> bench_cases() const override {
    return {{{"seq", 512}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"tg", 64}}};
  }
  std::string known_bug() const override {
    return documented_ ? "one num_heads for Q and K: with fewer K heads (GQA) it reads and writes "
                         "K out of bounds"
                       : "";
  }

  // q and k in place (half); inputs kept, double references, the in-place comparisons' copies.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("seq")) * uint64_t(p.at("q_heads") + p.at("kv_heads")) *
                       uint64_t(p.at("head_dim"));
    return {2 * n, (2 + 8 + 2) * n};
  }

  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    // The angle pos * freq is a float: its error, up to ~pos * 2^-22 radians, moves the output
    // by up to that times the pair's magnitude (docs/kernels/elementwise.md).
    const double max_pos = double(p.at("offset") + p.at("seq"));
    const Tolerance tol{0, 0x1p-11 + 0x1p-18 + max_pos * 0x1p-21,
                        "half output + float angle error"};
    return prepare_rope<half_t>(rope_case(p, name(), tol), documented_, ctx);
  }

 private:
  bool documented_;
};

// ------------------------------ registration
METALSIM_REGISTER_SPEC_AS(silu, ActivationSpec, "silu",
                          "SiLU x * sigmoid(x), in place (ADR-003's kernel)", &silu_ref,
                          &silu_baseline);
METALSIM_REGISTER_SPEC_AS(gelu, ActivationSpec, "gelu",
                          "GELU, tanh approximation, in place (ADR-003's kernel)", &gelu_ref,
                          &gelu_baseline);
METALSIM_REGISTER_SPEC_AS(multiply, BinarySpec, "multiply",
                          "out = a * b element-wise (FFN gate * up)", &multiply_ref,
                          &multiply_baseline);
METALSIM_REGISTER_SPEC_AS(swiglu, BinarySpec, "swiglu", "out = silu(gate) * up, fused", &swiglu_ref,
                          &swiglu_baseline);
METALSIM_REGISTER_SPEC_AS(rms_norm, RmsNormSpec, "rms_norm",
                          "RMSNorm x * rsqrt(mean(x^2) + eps) * w, any threadgroup size", 0, false);
METALSIM_REGISTER_SPEC_AS(rms_norm_plus_one, RmsNormSpec, "rms_norm_plus_one",
                          "RMSNorm with Gemma's (1 + w), any threadgroup size", 1, false);
METALSIM_REGISTER_SPEC_AS(rms_norm_as_documented, RmsNormSpec, "rms_norm_as_documented",
                          "ADR-003 RMSNorm as written (256-stride loops, 128-wide tree)", 0, true);
METALSIM_REGISTER_SPEC_AS(
    rope, RopeSpec, "rope",
    "RoPE on Q and K (own head counts), halves, position offset, theta per layer", false);
METALSIM_REGISTER_SPEC_AS(rope_as_documented, RopeSpec, "rope_as_documented",
                          "ADR-003 RoPE as written (one head count for Q and K)", true);

}  // namespace
}  // namespace metalsim::kernels::elementwise
