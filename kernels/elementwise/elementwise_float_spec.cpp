// Specs of the element-wise family's float kernels: rms_norm_float, rope_float and swiglu_float
// (the model runner's pipeline keeps its activations in float: docs/pipeline.md). Their inputs
// are half values widened to float, so the family's references (elementwise_ref.h, in double
// from half inputs) are exact references for them too; the tolerances are the half kernels'
// without the half output's 2^-11 (docs/kernels/elementwise.md).
#include "kernels/elementwise/elementwise_cases.h"
#include "kernels/spec/spec_names.h"

namespace metalsim::kernels::elementwise {
namespace {

ParamDef threads(int64_t fallback) {
  return {"tg", 1, 1024, {}, {1, 32, 33, 256, 1024}, fallback, "threads per threadgroup"};
}

// At most this many elements per tensor: a fuzzed case runs in a second or two.
constexpr int64_t kMaxElements = int64_t(1) << 22;

bool check(bool ok, const char* rule, std::string* why) {
  if (!ok && why) *why = rule;
  return ok;
}

// ------------------------------ rms_norm_float
class RmsNormFloatSpec : public spec::NamedSpec {
 public:
  RmsNormFloatSpec()
      : NamedSpec("rms_norm_float", "elementwise", "rms_norm on float rows, weight and output") {}
  std::vector<ParamDef> params() const override {
    return {{"rows", 1, 1 << 16, {}, {1, 2, 3}, 2, "rows (tokens), one threadgroup each"},
            {"hidden", 1, 1 << 16, {}, {1, 255, 256, 257, 576}, 256, "hidden_dim"},
            threads(32)};
  }
  bool valid(const Params& p, std::string* why) const override {
    return check(p.at("rows") >= 1 && p.at("hidden") >= 1 && p.at("tg") >= 1 &&
                     p.at("tg") <= 1024 && p.at("rows") * p.at("hidden") <= kMaxElements,
                 "rows, hidden >= 1, 1 <= tg <= 1024, rows * hidden <= 2^22", why);
  }
  std::vector<Params> sweep() const override {
    std::vector<Params> cases = rms_norm_sweep_start();
    cases.push_back({{"rows", 4}, {"hidden", 576}, {"tg", 32}});  // SmolLM's hidden size
    cases.push_back(kRmsNormWideRow);
    return cases;
  }
  // x, w and the output in float; the half inputs kept and the double reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("rows")) * uint64_t(p.at("hidden")),
                   w = uint64_t(p.at("hidden"));
    return {8 * n + 4 * w, (2 + 8) * n + 2 * w};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t hidden = uint32_t(p.at("hidden")), tg = uint32_t(p.at("tg"));
    // The float sum of squares (hidden * 2^-24 relative), rsqrt and two products.
    const Tolerance tol{0, (hidden + 32) * 0x1p-24, "float sum of squares over hidden"};
    return prepare_rms_norm<float>(
        {"rms_norm_float", uint32_t(p.at("rows")), hidden, tg, tg, 1e-5f, 0, tol}, ctx);
  }
};

// ------------------------------ rope_float
class RopeFloatSpec : public spec::NamedSpec {
 public:
  RopeFloatSpec() : NamedSpec("rope_float", "elementwise", "rope on float Q and K, in place") {}
  std::vector<ParamDef> params() const override {
    return {{"seq", 1, 1 << 14, {}, {1, 3}, 3, "tokens"},
            {"q_heads", 1, 128, {}, {1, 4, 9}, 4, "query heads"},
            {"kv_heads", 1, 128, {}, {1, 3, 4}, 4, "key heads"},
            {"head_dim", 2, 256, {}, {2, 64, 128}, 64, "even"},
            {"offset", 0, 1 << 20, {}, {0, 7, 4096}, 0, "position_offset"},
            {"theta", 1, 10000000, {}, {10000, 1000000}, 10000, "theta_base"},
            threads(32)};
  }
  bool valid(const Params& p, std::string* why) const override {
    return check(
        p.at("head_dim") >= 2 && p.at("head_dim") % 2 == 0 && p.at("seq") >= 1 &&
            p.at("q_heads") >= 1 && p.at("kv_heads") >= 1 && p.at("tg") >= 1 &&
            p.at("tg") <= 1024 && p.at("theta") >= 1 && p.at("offset") >= 0 &&
            p.at("seq") * (p.at("q_heads") + p.at("kv_heads")) * p.at("head_dim") <= kMaxElements,
        "head_dim even; seq, heads >= 1; 1 <= tg <= 1024; theta >= 1, offset >= 0; "
        "seq * (q_heads + kv_heads) * head_dim <= 2^22",
        why);
  }
  std::vector<Params> sweep() const override {
    std::vector<Params> cases = rope_sweep_start();
    cases.push_back({{"seq", 5},
                     {"q_heads", 9},
                     {"kv_heads", 3},
                     {"head_dim", 64},
                     {"offset", 100},
                     {"tg", 32}});
    return cases;
  }
  // q and k in place (float); the half inputs, their float copies and the double references.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("seq")) * uint64_t(p.at("q_heads") + p.at("kv_heads")) *
                       uint64_t(p.at("head_dim"));
    return {4 * n, (2 + 4 + 8 + 4) * n};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    // The float angle pos * freq errs by ~pos * 2^-22 rad (as the half kernel's).
    const double max_pos = double(p.at("offset") + p.at("seq"));
    const Tolerance tol{0, 0x1p-18 + max_pos * 0x1p-21, "float angle error"};
    return prepare_rope<float>(rope_case(p, "rope_float", tol), false, ctx);
  }
};

// ------------------------------ swiglu_float
class SwigluFloatSpec : public spec::NamedSpec {
 public:
  SwigluFloatSpec() : NamedSpec("swiglu_float", "elementwise", "out = silu(gate) * up on floats") {}
  std::vector<ParamDef> params() const override {
    return {{"count", 1, kMaxElements, {}, {1, 31, 32, 33, 1536}, 1000, "elements"}, threads(256)};
  }
  bool valid(const Params& p, std::string* why) const override {
    return check(p.at("count") >= 1 && p.at("tg") >= 1 && p.at("tg") <= 1024,
                 "count >= 1 and 1 <= tg <= 1024", why);
  }
  std::vector<Params> sweep() const override { return binary_sweep(); }
  // gate, up and the output in float; the half inputs and the double reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("count"));
    return {12 * n, (4 + 8) * n};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const Tolerance tol{0, 0x1p-18, "float exp, a division and a product: a few float ulps"};
    return prepare_binary<float>(
        {"swiglu_float", uint32_t(p.at("count")), uint32_t(p.at("tg")), &swiglu_ref, tol}, ctx);
  }
};

METALSIM_REGISTER_SPEC(RmsNormFloatSpec);
METALSIM_REGISTER_SPEC(RopeFloatSpec);
METALSIM_REGISTER_SPEC(SwigluFloatSpec);

}  // namespace
}  // namespace metalsim::kernels::elementwise
