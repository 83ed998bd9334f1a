// Specs of the element-wise family's float kernels: rms_norm_float, rope_float and swiglu_float
// (the model runner's pipeline keeps its activations in float: docs/pipeline.md). Their inputs
// are half values widened to float, so the family's references (elementwise_ref.h, in double
// from half inputs) are exact references for them too; the tolerances are the half kernels'
// without the half output's 2^-11 (docs/kernels/elementwise.md).
#include <cmath>

#include "kernels/elementwise/elementwise_ref.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::kernels::elementwise {
namespace {

using spec::CaseResult;
using spec::half_t;
using spec::ParamDef;
using spec::Params;
using spec::Tolerance;

std::vector<float> widen(const std::vector<half_t>& v) { return {v.begin(), v.end()}; }

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
class RmsNormFloatSpec : public spec::KernelSpec {
 public:
  std::string name() const override { return "rms_norm_float"; }
  std::string family() const override { return "elementwise"; }
  std::string summary() const override { return "rms_norm on float rows, weight and output"; }
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
    return {
        {{"rows", 1}, {"hidden", 1}, {"tg", 1}},     {{"rows", 2}, {"hidden", 255}, {"tg", 256}},
        {{"rows", 2}, {"hidden", 257}, {"tg", 256}}, {{"rows", 3}, {"hidden", 100}, {"tg", 33}},
        {{"rows", 4}, {"hidden", 576}, {"tg", 32}},  {{"rows", 1}, {"hidden", 4096}, {"tg", 1024}}};
  }
  // x, w and the output in float; the half inputs kept and the double reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("rows")) * uint64_t(p.at("hidden")),
                   w = uint64_t(p.at("hidden"));
    return {8 * n + 4 * w, (2 + 8) * n + 2 * w};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t rows = uint32_t(p.at("rows")), hidden = uint32_t(p.at("hidden")),
                   tg = uint32_t(p.at("tg"));
    const float eps = 1e-5f;
    spec::InputGenerator gen(ctx.seed());
    auto x = std::make_shared<std::vector<half_t>>(
        gen.uniform_vector<half_t>(size_t(rows) * hidden, -2, 2));
    auto w = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(hidden, 0.5, 1.5));
    auto ref = std::make_shared<std::vector<double>>();
    auto bx = ctx.buffer(widen(*x)), bw = ctx.buffer(widen(*w));
    const size_t n = x->size();
    auto out = ctx.buffer(n * sizeof(float));
    auto poison = [=] { spec::poison(static_cast<float*>(out->contents()), n); };
    poison();
    auto c = std::make_unique<spec::StandardCase>();
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          "rms_norm_float",
          [&](auto* e) {
            e->setBuffer(bx.get(), 0, 0);
            e->setBuffer(bw.get(), 0, 1);
            e->setBuffer(out.get(), 0, 2);
            e->setBytes(&hidden, sizeof hidden, 3);
            e->setBytes(&eps, sizeof eps, 4);
            e->setThreadgroupMemoryLength(spec::tg_bytes(tg * sizeof(float)), 0);
          },
          {rows, 1, 1}, {tg, 1, 1}, spec::CaseContext::Grid::threadgroups, r);
    };
    c->reference = [=] { *ref = rms_norm_ref(*x, *w, rows, hidden, eps, 0); };
    // The float sum of squares (hidden * 2^-24 relative), rsqrt and two products.
    const Tolerance tol{0, (hidden + 32) * 0x1p-24, "float sum of squares over hidden"};
    c->check = [=](CaseResult& r) {
      spec::compare_output("output", spec::contents<float>(out), ref->data(), n, tol, r);
    };
    c->expose("output", out);
    c->poison_again = poison;
    return c;
  }
};

// ------------------------------ rope_float
class RopeFloatSpec : public spec::KernelSpec {
 public:
  std::string name() const override { return "rope_float"; }
  std::string family() const override { return "elementwise"; }
  std::string summary() const override { return "rope on float Q and K, in place"; }
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
    return {
        {{"seq", 1}, {"q_heads", 1}, {"kv_heads", 1}, {"head_dim", 2}, {"tg", 1}},
        {{"seq", 3}, {"q_heads", 4}, {"kv_heads", 1}, {"head_dim", 64}, {"offset", 7}, {"tg", 33}},
        {{"seq", 2},
         {"q_heads", 8},
         {"kv_heads", 2},
         {"head_dim", 128},
         {"offset", 4096},
         {"theta", 1000000},
         {"tg", 256}},
        {{"seq", 5},
         {"q_heads", 9},
         {"kv_heads", 3},
         {"head_dim", 64},
         {"offset", 100},
         {"tg", 32}}};
  }
  // q and k in place (float); the half inputs, their float copies and the double references.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("seq")) * uint64_t(p.at("q_heads") + p.at("kv_heads")) *
                       uint64_t(p.at("head_dim"));
    return {4 * n, (2 + 4 + 8 + 4) * n};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    struct {
      uint32_t seq_len, q_heads, kv_heads, head_dim, position_offset;
      float theta_base;
    } args{uint32_t(p.at("seq")),      uint32_t(p.at("q_heads")), uint32_t(p.at("kv_heads")),
           uint32_t(p.at("head_dim")), uint32_t(p.at("offset")),  float(p.at("theta"))};
    const uint32_t tg = uint32_t(p.at("tg"));
    spec::InputGenerator gen(ctx.seed());
    const size_t qn = size_t(args.seq_len) * args.q_heads * args.head_dim;
    const size_t kn = size_t(args.seq_len) * args.kv_heads * args.head_dim;
    auto q = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(qn, -2, 2));
    auto k = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(kn, -2, 2));
    auto qf = std::make_shared<std::vector<float>>(widen(*q));
    auto kf = std::make_shared<std::vector<float>>(widen(*k));
    auto qref = std::make_shared<std::vector<double>>(),
         kref = std::make_shared<std::vector<double>>();
    auto bq = ctx.buffer(*qf), bk = ctx.buffer(*kf);
    auto c = std::make_unique<spec::StandardCase>();
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          "rope_float",
          [&](auto* e) {
            e->setBuffer(bq.get(), 0, 0);
            e->setBuffer(bk.get(), 0, 1);
            e->setBytes(&args, sizeof args, 2);
          },
          {args.head_dim / 2, args.q_heads + args.kv_heads, args.seq_len}, {tg, 1, 1},
          spec::CaseContext::Grid::threads, r);
    };
    c->reference = [=] {
      *qref = rope_ref(*q, args.seq_len, args.q_heads, args.head_dim, args.position_offset,
                       args.theta_base);
      *kref = rope_ref(*k, args.seq_len, args.kv_heads, args.head_dim, args.position_offset,
                       args.theta_base);
    };
    // The float angle pos * freq errs by ~pos * 2^-22 rad (as the half kernel's).
    const double max_pos = double(args.position_offset + args.seq_len);
    const Tolerance tol{0, 0x1p-18 + max_pos * 0x1p-21, "float angle error"};
    c->check = [=](CaseResult& r) {
      spec::compare_in_place("q", spec::contents<float>(bq), *qf, *qref, tol, r);
      spec::compare_in_place("k", spec::contents<float>(bk), *kf, *kref, tol, r);
    };
    c->poison_again = [=] {
      spec::fill(bq, *qf);
      spec::fill(bk, *kf);
    };
    c->expose("q", bq);
    c->expose("k", bk);
    return c;
  }
};

// ------------------------------ swiglu_float
class SwigluFloatSpec : public spec::KernelSpec {
 public:
  std::string name() const override { return "swiglu_float"; }
  std::string family() const override { return "elementwise"; }
  std::string summary() const override { return "out = silu(gate) * up on floats"; }
  std::vector<ParamDef> params() const override {
    return {{"count", 1, kMaxElements, {}, {1, 31, 32, 33, 1536}, 1000, "elements"}, threads(256)};
  }
  bool valid(const Params& p, std::string* why) const override {
    return check(p.at("count") >= 1 && p.at("tg") >= 1 && p.at("tg") <= 1024,
                 "count >= 1 and 1 <= tg <= 1024", why);
  }
  std::vector<Params> sweep() const override {
    return {
        {{"count", 1}, {"tg", 1}}, {{"count", 33}, {"tg", 32}}, {{"count", 1025}, {"tg", 1024}}};
  }
  // gate, up and the output in float; the half inputs and the double reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("count"));
    return {12 * n, (4 + 8) * n};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t count = uint32_t(p.at("count")), tg = uint32_t(p.at("tg"));
    spec::InputGenerator gen(ctx.seed());
    auto gate = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(count, -8, 8));
    auto up = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(count, -8, 8));
    auto ref = std::make_shared<std::vector<double>>();
    auto bg = ctx.buffer(widen(*gate)), bu = ctx.buffer(widen(*up));
    auto out = ctx.buffer(count * sizeof(float));
    auto poison = [=] { spec::poison(static_cast<float*>(out->contents()), count); };
    poison();
    auto c = std::make_unique<spec::StandardCase>();
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          "swiglu_float",
          [&](auto* e) {
            e->setBuffer(bg.get(), 0, 0);
            e->setBuffer(bu.get(), 0, 1);
            e->setBuffer(out.get(), 0, 2);
            e->setBytes(&count, sizeof count, 3);
          },
          {count, 1, 1}, {tg, 1, 1}, spec::CaseContext::Grid::threads, r);
    };
    c->reference = [=] { *ref = swiglu_ref(*gate, *up); };
    const Tolerance tol{0, 0x1p-18, "float exp, a division and a product: a few float ulps"};
    c->check = [=](CaseResult& r) {
      spec::compare_output("out", spec::contents<float>(out), ref->data(), count, tol, r);
    };
    c->expose("out", out);
    c->poison_again = poison;
    return c;
  }
};

METALSIM_REGISTER_SPEC(RmsNormFloatSpec);
METALSIM_REGISTER_SPEC(RopeFloatSpec);
METALSIM_REGISTER_SPEC(SwigluFloatSpec);

}  // namespace
}  // namespace metalsim::kernels::elementwise
