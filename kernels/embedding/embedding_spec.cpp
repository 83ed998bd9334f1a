// Specs of the embedding family: embedding_lookup_f16, embedding_lookup_q8_0, argmax.
// Out-of-range token ids: the kernel writes zeros and status[t] = 1; the spec checks both, and
// token_errors() is the host's error message (tests/kernels/embedding_test.cpp).
#include <cmath>
#include <limits>

#include "kernels/embedding/embedding_baseline.h"
#include "kernels/embedding/embedding_cases.h"
#include "kernels/embedding/embedding_ref.h"

namespace metalsim::kernels::embedding {
namespace {

// ------------------------------ embedding_lookup_f16, embedding_lookup_q8_0
class EmbeddingSpec : public spec::NamedSpec {
 public:
  EmbeddingSpec(std::string name, std::string summary, bool q8)
      : NamedSpec(std::move(name), "embedding", std::move(summary)), q8_(q8) {}
  std::vector<ParamDef> params() const override {
    return {
        {"tokens", 1, 1 << 16, {}, {1, 7}, 7, "token ids in the batch"},
        {"vocab", 1, 1 << 20, {}, {1, 100}, 100, "rows of the table"},
        {"dim",
         1,
         1 << 14,
         {},
         {32, 64, 96},
         64,
         q8_ ? "hidden size, a multiple of 32" : "hidden size"},
        {"bad", 0, 1 << 16, {}, {0, 1, 2}, 0, "out-of-range ids among the tokens (first and last)"},
        {"gemma", 0, 1, {0, 1}, {0, 1}, 0, "1: scale by sqrt(dim)"},
        {"tg", 1, 1024, {}, {1, 32, 33, 256}, 32, "threadgroup width (along dim)"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    std::string w;
    if (p.at("tokens") < 1 || p.at("vocab") < 1 || p.at("dim") < 1) w = "tokens, vocab, dim >= 1";
    else if (q8_ && p.at("dim") % 32 != 0) w = "dim must be a multiple of 32 (Q8_0 blocks)";
    else if (p.at("bad") < 0 || p.at("bad") > p.at("tokens")) w = "0 <= bad <= tokens";
    else if (p.at("tg") < 1 || p.at("tg") > 1024) w = "1 <= tg <= 1024";
    if (why) *why = w;
    return w.empty();
  }
  std::vector<Params> sweep() const override {
    return {{{"tokens", 1}, {"vocab", 1}, {"dim", 32}, {"tg", 1}},
            {{"tokens", 7}, {"vocab", 100}, {"dim", 96}, {"bad", 2}, {"tg", 33}},
            {{"tokens", 3}, {"vocab", 50}, {"dim", 64}, {"gemma", 1}, {"tg", 256}},
            {{"tokens", 2}, {"vocab", 10}, {"dim", q8_ ? 32 : 33}, {"bad", 1}, {"tg", 32}}};
  }
  std::vector<Params> bench_cases() const override {
    return {{{"tokens", 512}, {"vocab", 32000}, {"dim", 4096}, {"tg", 256}}};
  }

  // The table (half, or Q8_0 at 34 bytes per 32), ids, status and output; the double reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t table = uint64_t(p.at("vocab")) * uint64_t(p.at("dim")) * 2;
    const uint64_t out = uint64_t(p.at("tokens")) * uint64_t(p.at("dim"));
    return {table + 2 * out + 8 * uint64_t(p.at("tokens")),
            table + 8 * out + 16 * uint64_t(p.at("tokens"))};
  }

  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t t = uint32_t(p.at("tokens")), v = uint32_t(p.at("vocab")),
                   d = uint32_t(p.at("dim"));
    const uint32_t tg = uint32_t(p.at("tg"));
    const float scale = p.at("gemma") ? std::sqrt(float(d)) : 1.0f;
    spec::InputGenerator gen(ctx.seed());
    auto tokens =
        std::make_shared<const std::vector<uint32_t>>(make_tokens(gen, t, v, p.at("bad")));
    NS::SharedPtr<MTL::Buffer> table;
    std::function<void(std::vector<double>&)> reference;
    std::function<void()> baseline;
    auto fast_out = std::make_shared<std::vector<half_t>>(size_t(t) * d);
    if (q8_) {
      auto blocks = std::make_shared<std::vector<BlockQ8_0>>(size_t(v) * d / 32);
      for (BlockQ8_0& b : *blocks) {
        b.d = half_t(gen.uniform(-0.01, 0.01));
        for (int8_t& q : b.qs) q = int8_t(gen.integer(-127, 127));
      }
      table = ctx.buffer(*blocks);
      reference = [=](std::vector<double>& ref) {
        ref = lookup_q8_0_ref(*tokens, *blocks, v, d, scale);
      };
      baseline = [=] {
        lookup_q8_0_baseline(tokens->data(), t, blocks->data(), v, d, scale, fast_out->data());
      };
    } else {
      auto values =
          std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(size_t(v) * d, -1, 1));
      table = ctx.buffer(*values);
      reference = [=](std::vector<double>& ref) {
        ref = lookup_f16_ref(*tokens, *values, v, d, scale);
      };
      baseline = [=] {
        lookup_f16_baseline(tokens->data(), t, values->data(), v, d, scale, fast_out->data());
      };
    }
    // A copy is exact; Q8_0's q * d and the Gemma scale round once to half.
    const Tolerance tol{0x1p-25, 0x1p-11, "one rounding to half"};
    auto c =
        prepare_lookup<half_t>({name(), t, v, d, tg, scale, tol}, tokens, table, reference, ctx);
    c->baseline = baseline;
    return c;
  }

 private:
  bool q8_;
};

// ------------------------------ argmax
class ArgmaxSpec : public spec::NamedSpec {
 public:
  ArgmaxSpec()
      : NamedSpec("argmax", "embedding",
                  "index of each row's largest logit (ties: lowest; NaN skipped)") {}
  std::vector<ParamDef> params() const override {
    return {{"rows", 1, 1 << 12, {}, {1, 2}, 2, "rows of logits, one threadgroup each"},
            {"cols", 1, 1 << 20, {}, {1, 255, 256, 257}, 1000, "vocabulary size"},
            {"tg", 1, 1024, {}, {1, 32, 33, 256, 1024}, 256, "threads per threadgroup"},
            {"fill",
             0,
             3,
             {0, 1, 2, 3},
             {0, 1, 2, 3},
             0,
             "0 random, 1 many ties, 2 some NaN, 3 row 0 all NaN"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    std::string w;
    if (p.at("rows") < 1 || p.at("cols") < 1) w = "rows, cols >= 1";
    else if (p.at("tg") < 1 || p.at("tg") > 1024) w = "1 <= tg <= 1024";
    else if (p.at("fill") < 0 || p.at("fill") > 3) w = "fill in 0..3";
    if (why) *why = w;
    return w.empty();
  }
  std::vector<Params> sweep() const override {
    return {{{"rows", 1}, {"cols", 1}, {"tg", 1}},
            {{"rows", 2}, {"cols", 257}, {"tg", 256}, {"fill", 1}},
            {{"rows", 3}, {"cols", 255}, {"tg", 33}, {"fill", 2}},
            {{"rows", 2}, {"cols", 100}, {"tg", 32}, {"fill", 3}},
            {{"rows", 1}, {"cols", 5000}, {"tg", 1024}, {"fill", 1}}};
  }
  std::vector<Params> bench_cases() const override {
    return {{{"rows", 1}, {"cols", 152064}, {"tg", 1024}}};
  }

  // Logits (float) and one index per row; the logits kept for the reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("rows")) * uint64_t(p.at("cols"));
    return {4 * n + 8 * uint64_t(p.at("rows")), 4 * n + 16 * uint64_t(p.at("rows"))};
  }

  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t rows = uint32_t(p.at("rows")), cols = uint32_t(p.at("cols")),
                   tg = uint32_t(p.at("tg"));
    const int64_t fill = p.at("fill");
    spec::InputGenerator gen(ctx.seed());
    auto logits = std::make_shared<std::vector<float>>(size_t(rows) * cols);
    for (float& x : *logits) x = fill == 1 ? float(gen.integer(0, 3)) : float(gen.normal() * 5);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (fill == 2)
      for (float& x : *logits)
        if (gen.integer(0, 7) == 0) x = nan;
    if (fill == 3)
      for (uint32_t c = 0; c < cols; ++c) (*logits)[c] = nan;
    auto& dev = ctx;
    auto in = dev.buffer(*logits), out = dev.buffer(size_t(rows) * 4);
    auto ref = std::make_shared<std::vector<double>>();
    auto poison = [=] { spec::poison(static_cast<uint32_t*>(out->contents()), rows); };
    poison();
    auto c = std::make_unique<spec::StandardCase>();
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          "argmax",
          [&](auto* e) {
            spec::set_buffers(e, {in.get(), out.get()});
            e->setBytes(&rows, 4, 2);
            e->setBytes(&cols, 4, 3);
            e->setThreadgroupMemoryLength(spec::tg_bytes(tg * 4), 0);
            e->setThreadgroupMemoryLength(spec::tg_bytes(tg * 4), 1);
          },
          {rows, 1, 1}, {tg, 1, 1}, spec::CaseContext::Grid::threadgroups, r);
    };
    c->reference = [=] {
      const std::vector<uint32_t> idx = argmax_ref(*logits, rows, cols);
      ref->assign(idx.begin(), idx.end());
    };
    c->check = [=](CaseResult& r) {
      spec::compare_output("index", spec::contents<uint32_t>(out), ref->data(), rows, Tolerance{},
                           r);
    };
    auto fast_out = std::make_shared<std::vector<uint32_t>>(rows);
    c->baseline = [=] { argmax_baseline(logits->data(), rows, cols, fast_out->data()); };
    c->expose("index", out);
    c->poison_again = poison;
    return c;
  }
};

METALSIM_REGISTER_SPEC_AS(
    embedding_f16, EmbeddingSpec, "embedding_lookup_f16",
    "out[t] = table[tokens[t]] * scale, table in half; ids >= vocab flagged in status", false);
METALSIM_REGISTER_SPEC_AS(
    embedding_q8, EmbeddingSpec, "embedding_lookup_q8_0",
    "out[t] = table[tokens[t]] * scale, table in GGML Q8_0; ids >= vocab flagged in status", true);
METALSIM_REGISTER_SPEC(ArgmaxSpec);

}  // namespace
}  // namespace metalsim::kernels::embedding
