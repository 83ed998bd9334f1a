// Specs of the element-wise family: silu, gelu (in place), multiply, swiglu, rms_norm
// (+ plus_one, + as_documented), rope (+ as_documented). Tolerances: docs/kernels/elementwise.md.
#include <algorithm>
#include <cmath>

#include "kernels/elementwise/elementwise_baseline.h"
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
class PerElementSpec : public spec::KernelSpec {
 public:
  PerElementSpec(std::string name, std::string summary)
      : name_(std::move(name)), summary_(std::move(summary)) {}
  std::string name() const override { return name_; }
  std::string family() const override { return "elementwise"; }
  std::string summary() const override { return summary_; }
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

 protected:
  std::string name_, summary_;
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
    const std::string kernel = name_;
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          kernel,
          [&](auto* e) {
            e->setBuffer(x.get(), 0, 0);
            e->setBytes(&count, sizeof count, 1);
          },
          {count, 1, 1}, {tg, 1, 1}, spec::CaseContext::Grid::threads, r);
    };
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
  using Ref = std::vector<double> (*)(const std::vector<half_t>&, const std::vector<half_t>&);
  using Baseline = void (*)(const half_t*, const half_t*, half_t*, size_t);
  BinarySpec(std::string name, std::string summary, Ref ref, Baseline fast)
      : PerElementSpec(std::move(name), std::move(summary)), ref_(ref), fast_(fast) {}
  std::vector<Params> sweep() const override {
    return {
        {{"count", 1}, {"tg", 1}}, {{"count", 33}, {"tg", 32}}, {{"count", 1025}, {"tg", 1024}}};
  }
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
    const uint32_t count = uint32_t(p.at("count"));
    const uint32_t tg = uint32_t(p.at("tg"));
    spec::InputGenerator gen(ctx.seed());
    auto c = std::make_unique<spec::StandardCase>();
    auto a = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(count, -8, 8));
    auto b = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(count, -8, 8));
    auto ref = std::make_shared<std::vector<double>>();
    auto& dev = ctx;
    auto ba = dev.buffer(*a), bb = dev.buffer(*b), out = dev.buffer(count * sizeof(half_t));
    auto poison = [=] { spec::poison(static_cast<half_t*>(out->contents()), count); };
    poison();
    const std::string kernel = name_;
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          kernel,
          [&](auto* e) {
            e->setBuffer(ba.get(), 0, 0);
            e->setBuffer(bb.get(), 0, 1);
            e->setBuffer(out.get(), 0, 2);
            e->setBytes(&count, sizeof count, 3);
          },
          {count, 1, 1}, {tg, 1, 1}, spec::CaseContext::Grid::threads, r);
    };
    c->reference = [=, ref_fn = ref_] { *ref = ref_fn(*a, *b); };
    c->check = [=](CaseResult& r) {
      spec::compare_output("out", spec::contents<half_t>(out), ref->data(), count,
                           activation_tolerance(), r);
    };
    c->expose("out", out);
    c->poison_again = poison;
    auto fast_out = std::make_shared<std::vector<half_t>>(count);
    c->baseline = [=, f = fast_] { f(a->data(), b->data(), fast_out->data(), count); };
    return c;
  }

 private:
  Ref ref_;
  Baseline fast_;
};

// ------------------------------ rms_norm: one threadgroup per row
class RmsNormSpec : public spec::KernelSpec {
 public:
  RmsNormSpec(std::string name, double weight_offset, bool documented)
      : name_(std::move(name)), weight_offset_(weight_offset), documented_(documented) {}
  std::string name() const override { return name_; }
  std::string family() const override { return "elementwise"; }
  std::string summary() const override {
    if (documented_) return "ADR-003 RMSNorm as written (256-stride loops, 128-wide tree)";
    return weight_offset_ == 0 ? "RMSNorm x * rsqrt(mean(x^2) + eps) * w, any threadgroup size"
                               : "RMSNorm with Gemma's (1 + w), any threadgroup size";
  }
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
    return {
        {{"rows", 1}, {"hidden", 1}, {"tg", 1}},       {{"rows", 2}, {"hidden", 255}, {"tg", 256}},
        {{"rows", 2}, {"hidden", 257}, {"tg", 256}},   {{"rows", 3}, {"hidden", 100}, {"tg", 33}},
        {{"rows", 1}, {"hidden", 4096}, {"tg", 1024}}, {{"rows", 2}, {"hidden", 300}, {"tg", 200}}};
  }
  std::vector<Params> bench_cases() const override {
    return {{{"rows", 4096}, {"hidden", 4096}, {"tg", 256}}};
  }
  spec::Expectation expectation() const override {
    return documented_ ? spec::Expectation::known_bug : spec::Expectation::pass;
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
    const uint32_t rows = uint32_t(p.at("rows")), hidden = uint32_t(p.at("hidden")),
                   tg = uint32_t(p.at("tg"));
    const uint32_t shared = p.at("shared_floats") ? uint32_t(p.at("shared_floats")) : tg;
    const float eps = 1e-6f;
    spec::InputGenerator gen(ctx.seed());
    auto c = std::make_unique<spec::StandardCase>();
    auto x = std::make_shared<std::vector<half_t>>(
        gen.uniform_vector<half_t>(size_t(rows) * hidden, -2, 2));
    auto w = std::make_shared<std::vector<half_t>>(
        weight_offset_ == 0 ? gen.uniform_vector<half_t>(hidden, 0.5, 1.5)
                            : gen.uniform_vector<half_t>(hidden, -0.5, 0.5));
    auto ref = std::make_shared<std::vector<double>>();
    auto& dev = ctx;
    auto bx = dev.buffer(*x), bw = dev.buffer(*w), out = dev.buffer(x->size() * sizeof(half_t));
    const size_t n = x->size();
    auto poison = [=] { spec::poison(static_cast<half_t*>(out->contents()), n); };
    poison();
    const std::string kernel = documented_           ? "rms_norm_as_documented"
                               : weight_offset_ == 0 ? "rms_norm"
                                                     : "rms_norm_plus_one";
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          kernel,
          [&](auto* e) {
            e->setBuffer(bx.get(), 0, 0);
            e->setBuffer(bw.get(), 0, 1);
            e->setBuffer(out.get(), 0, 2);
            e->setBytes(&hidden, sizeof hidden, 3);
            e->setBytes(&eps, sizeof eps, 4);
            e->setThreadgroupMemoryLength(spec::tg_bytes(shared * sizeof(float)), 0);
          },
          {rows, 1, 1}, {tg, 1, 1}, spec::CaseContext::Grid::threadgroups, r);
    };
    const double offset = weight_offset_;
    c->reference = [=] { *ref = rms_norm_ref(*x, *w, rows, hidden, eps, offset); };
    // Half output; the sum of squares in float adds up to hidden * 2^-24 relative.
    const Tolerance tol{0, 0x1p-11 + (hidden + 16) * 0x1p-24, "half output + float sum of squares"};
    c->check = [=](CaseResult& r) {
      spec::compare_output("output", spec::contents<half_t>(out), ref->data(), n, tol, r);
    };
    c->expose("output", out);
    c->poison_again = poison;
    auto fast_out = std::make_shared<std::vector<half_t>>(n);
    c->baseline = [=] {
      rms_norm_baseline(x->data(), w->data(), fast_out->data(), rows, hidden, eps, float(offset));
    };
    return c;
  }

 private:
  std::string name_;
  double weight_offset_;
  bool documented_;
};

// ------------------------------ rope: Q and K in place
class RopeSpec : public spec::KernelSpec {
 public:
  explicit RopeSpec(bool documented) : documented_(documented) {}
  std::string name() const override { return documented_ ? "rope_as_documented" : "rope"; }
  std::string family() const override { return "elementwise"; }
  std::string summary() const override {
    return documented_
               ? "ADR-003 RoPE as written (one head count for Q and K)"
               : "RoPE on Q and K (own head counts), halves, position offset, theta per layer";
  }
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
        {{"seq", 5}, {"q_heads", 2}, {"kv_heads", 2}, {"head_dim", 6}, {"tg", 1024}}};
  }
  std::vector<Params> bench_cases() const override {
    return {{{"seq", 512}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"tg", 64}}};
  }
  spec::Expectation expectation() const override {
    return documented_ ? spec::Expectation::known_bug : spec::Expectation::pass;
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
    const uint32_t seq = uint32_t(p.at("seq")), qh = uint32_t(p.at("q_heads")),
                   kh = uint32_t(p.at("kv_heads"));
    const uint32_t dim = uint32_t(p.at("head_dim")), offset = uint32_t(p.at("offset")),
                   tg = uint32_t(p.at("tg"));
    const float theta = float(p.at("theta"));
    spec::InputGenerator gen(ctx.seed());
    auto c = std::make_unique<spec::StandardCase>();
    auto q = std::make_shared<std::vector<half_t>>(
        gen.uniform_vector<half_t>(size_t(seq) * qh * dim, -2, 2));
    auto k = std::make_shared<std::vector<half_t>>(
        gen.uniform_vector<half_t>(size_t(seq) * kh * dim, -2, 2));
    auto qref = std::make_shared<std::vector<double>>(),
         kref = std::make_shared<std::vector<double>>();
    auto& dev = ctx;
    auto bq = dev.buffer(*q), bk = dev.buffer(*k);
    const bool documented = documented_;
    c->kernel = [=, &ctx](CaseResult& r) {
      if (documented) {
        ctx.dispatch(
            "rope_as_documented",
            [&](auto* e) {
              e->setBuffer(bq.get(), 0, 0);
              e->setBuffer(bk.get(), 0, 1);
              e->setBytes(&seq, 4, 2);
              e->setBytes(&qh, 4, 3);  // the document has one head count: the host passes Q's
              e->setBytes(&dim, 4, 4);
              e->setBytes(&offset, 4, 5);
              e->setBytes(&theta, 4, 6);
            },
            {dim / 2, qh, seq}, {tg, 1, 1}, spec::CaseContext::Grid::threads, r);
        return;
      }
      struct {
        uint32_t seq_len, q_heads, kv_heads, head_dim, position_offset;
        float theta_base;
      } args{seq, qh, kh, dim, offset, theta};
      ctx.dispatch(
          "rope",
          [&](auto* e) {
            e->setBuffer(bq.get(), 0, 0);
            e->setBuffer(bk.get(), 0, 1);
            e->setBytes(&args, sizeof args, 2);
          },
          {dim / 2, qh + kh, seq}, {tg, 1, 1}, spec::CaseContext::Grid::threads, r);
    };
    c->reference = [=] {
      *qref = rope_ref(*q, seq, qh, dim, offset, theta);
      *kref = rope_ref(*k, seq, kh, dim, offset, theta);
    };
    // The angle pos * freq is a float: its error, up to ~pos * 2^-22 radians, moves the output
    // by up to that times the pair's magnitude (docs/kernels/elementwise.md).
    const double max_pos = double(offset + seq);
    const Tolerance tol{0, 0x1p-11 + 0x1p-18 + max_pos * 0x1p-21,
                        "half output + float angle error"};
    c->check = [=](CaseResult& r) {
      spec::compare_in_place("q", spec::contents<half_t>(bq), *q, *qref, tol, r);
      spec::compare_in_place("k", spec::contents<half_t>(bk), *k, *kref, tol, r);
    };
    c->poison_again = [=] {
      spec::fill(bq, *q);
      spec::fill(bk, *k);
    };
    c->expose("q", bq);
    c->expose("k", bk);
    auto fast_q = std::make_shared<std::vector<half_t>>(q->size()),
         fast_k = std::make_shared<std::vector<half_t>>(k->size());
    c->baseline = [=] {
      rope_baseline(q->data(), fast_q->data(), seq, qh, dim, offset, theta);
      rope_baseline(k->data(), fast_k->data(), seq, kh, dim, offset, theta);
    };
    return c;
  }

 private:
  bool documented_;
};

// ------------------------------ registration
struct SiluSpec : ActivationSpec {
  SiluSpec()
      : ActivationSpec("silu", "SiLU x * sigmoid(x), in place (ADR-003's kernel)", &silu_ref,
                       &silu_baseline) {}
};
struct GeluSpec : ActivationSpec {
  GeluSpec()
      : ActivationSpec("gelu", "GELU, tanh approximation, in place (ADR-003's kernel)", &gelu_ref,
                       &gelu_baseline) {}
};
struct MultiplySpec : BinarySpec {
  MultiplySpec()
      : BinarySpec("multiply", "out = a * b element-wise (FFN gate * up)", &multiply_ref,
                   &multiply_baseline) {}
};
struct SwigluSpec : BinarySpec {
  SwigluSpec()
      : BinarySpec("swiglu", "out = silu(gate) * up, fused", &swiglu_ref, &swiglu_baseline) {}
};
struct RmsNormLlamaSpec : RmsNormSpec {
  RmsNormLlamaSpec() : RmsNormSpec("rms_norm", 0, false) {}
};
struct RmsNormPlusOneSpec : RmsNormSpec {
  RmsNormPlusOneSpec() : RmsNormSpec("rms_norm_plus_one", 1, false) {}
};
struct RmsNormDocumentedSpec : RmsNormSpec {
  RmsNormDocumentedSpec() : RmsNormSpec("rms_norm_as_documented", 0, true) {}
};
struct RopeFixedSpec : RopeSpec {
  RopeFixedSpec() : RopeSpec(false) {}
};
struct RopeDocumentedSpec : RopeSpec {
  RopeDocumentedSpec() : RopeSpec(true) {}
};

METALSIM_REGISTER_SPEC(SiluSpec);
METALSIM_REGISTER_SPEC(GeluSpec);
METALSIM_REGISTER_SPEC(MultiplySpec);
METALSIM_REGISTER_SPEC(SwigluSpec);
METALSIM_REGISTER_SPEC(RmsNormLlamaSpec);
METALSIM_REGISTER_SPEC(RmsNormPlusOneSpec);
METALSIM_REGISTER_SPEC(RmsNormDocumentedSpec);
METALSIM_REGISTER_SPEC(RopeFixedSpec);
METALSIM_REGISTER_SPEC(RopeDocumentedSpec);

}  // namespace
}  // namespace metalsim::kernels::elementwise
