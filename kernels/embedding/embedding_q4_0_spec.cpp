// Spec of embedding_lookup_q4_0_float: the model runner's embedding (docs/pipeline.md), a GGML
// Q4_0 table tied to the lm_head, float rows out. Out-of-range ids: zero rows and status 1, as
// the other lookups.
#include <cmath>

#include "kernels/embedding/embedding_ref.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/spec_names.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::kernels::embedding {
namespace {

using formats::BlockQ4_0;

class EmbeddingQ4_0FloatSpec : public spec::NamedSpec {
 public:
  EmbeddingQ4_0FloatSpec()
      : NamedSpec("embedding_lookup_q4_0_float", "embedding",
                  "out[t] = table[tokens[t]] * scale, table in GGML Q4_0, float out; ids >= vocab "
                  "flagged") {}
  std::vector<ParamDef> params() const override {
    return {{"tokens", 1, 1 << 16, {}, {1, 7}, 7, "token ids in the batch"},
            {"vocab", 1, 1 << 20, {}, {1, 100}, 100, "rows of the table"},
            {"dim", 32, 1 << 14, {}, {32, 64, 576}, 64, "hidden size, a multiple of 32"},
            {"bad", 0, 1 << 16, {}, {0, 1, 2}, 0, "out-of-range ids (first and last)"},
            {"tg", 1, 1024, {}, {1, 32, 33, 256}, 32, "threadgroup width (along dim)"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    std::string w;
    if (p.at("tokens") < 1 || p.at("vocab") < 1 || p.at("dim") < 1) w = "tokens, vocab, dim >= 1";
    else if (p.at("dim") % 32 != 0) w = "dim must be a multiple of 32 (Q4_0 blocks)";
    else if (p.at("bad") < 0 || p.at("bad") > p.at("tokens")) w = "0 <= bad <= tokens";
    else if (p.at("tg") < 1 || p.at("tg") > 1024) w = "1 <= tg <= 1024";
    else if (p.at("vocab") * p.at("dim") > (1 << 24) || p.at("tokens") * p.at("dim") > (1 << 22))
      w = "vocab * dim <= 2^24 and tokens * dim <= 2^22 (a fuzzed case stays small)";
    if (why) *why = w;
    return w.empty();
  }
  std::vector<Params> sweep() const override {
    return {{{"tokens", 1}, {"vocab", 1}, {"dim", 32}, {"tg", 1}},
            {{"tokens", 7}, {"vocab", 100}, {"dim", 96}, {"bad", 2}, {"tg", 33}},
            {{"tokens", 3}, {"vocab", 50}, {"dim", 576}, {"tg", 256}}};
  }
  // The Q4_0 table (18 bytes per 32 values), token ids, the float rows and statuses; the
  // table kept for the reference and the double reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t t = uint64_t(p.at("tokens")),
                   table = uint64_t(p.at("vocab")) * uint64_t(p.at("dim"));
    const uint64_t n = t * uint64_t(p.at("dim"));
    return {table * 18 / 32 + 8 * t + 4 * n, table * 18 / 32 + 8 * n + 8 * t};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t t = uint32_t(p.at("tokens")), v = uint32_t(p.at("vocab")),
                   d = uint32_t(p.at("dim")), tg = uint32_t(p.at("tg"));
    spec::InputGenerator gen(ctx.seed());
    auto tokens = std::make_shared<std::vector<uint32_t>>(t);
    for (uint32_t& id : *tokens) id = uint32_t(gen.integer(0, v - 1));
    for (int64_t b = 0; b < p.at("bad"); ++b)  // vocab itself first, then 0xFFFFFFFF (a -1)
      (*tokens)[b % 2 ? t - 1 - b / 2 : b / 2] = b % 2 ? 0xFFFFFFFFu : v;
    auto blocks = std::make_shared<std::vector<BlockQ4_0>>(size_t(v) * d / 32);
    for (BlockQ4_0& b : *blocks) {
      b.d = _Float16(gen.uniform(-0.1, 0.1));
      for (uint8_t& q : b.qs) q = uint8_t(gen.next_u64());
    }
    auto ref = std::make_shared<std::vector<double>>();
    auto expected = std::make_shared<std::vector<double>>();
    for (uint32_t id : *tokens) expected->push_back(id >= v ? 1 : 0);
    auto btok = ctx.buffer(*tokens), table = ctx.buffer(*blocks);
    const size_t n = size_t(t) * d;
    auto out = ctx.buffer(n * sizeof(float)), status = ctx.buffer(size_t(t) * 4);
    auto poison = [=] {
      spec::poison(static_cast<float*>(out->contents()), n);
      spec::poison(static_cast<uint32_t*>(status->contents()), t);
    };
    poison();
    auto c = std::make_unique<spec::StandardCase>();
    c->kernel = [=, &ctx](CaseResult& r) {
      struct {
        uint32_t tokens, vocab, dim;
        float scale;
      } args{t, v, d, 1.0f};
      ctx.dispatch(
          "embedding_lookup_q4_0_float",
          [&](auto* e) {
            spec::set_buffers(e, {btok.get(), table.get(), out.get(), status.get()});
            e->setBytes(&args, sizeof args, 4);
          },
          {d, t, 1}, {tg, 1, 1}, spec::CaseContext::Grid::threads, r);
    };
    c->reference = [=] { *ref = lookup_q4_0_ref(*tokens, *blocks, v, d, 1.0); };
    // (nibble - 8) * d is exact in float, and the scale is 1: exact.
    c->check = [=](CaseResult& r) {
      spec::compare_output("out", spec::contents<float>(out), ref->data(), n, Tolerance{}, r);
      spec::compare_output("status", spec::contents<uint32_t>(status), expected->data(), t,
                           Tolerance{}, r);
    };
    c->expose("out", out);
    c->expose("status", status);
    c->poison_again = poison;
    return c;
  }
};

METALSIM_REGISTER_SPEC(EmbeddingQ4_0FloatSpec);

}  // namespace
}  // namespace metalsim::kernels::embedding
