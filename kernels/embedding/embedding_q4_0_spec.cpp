// Spec of embedding_lookup_q4_0_float: the model runner's embedding (docs/pipeline.md), a GGML
// Q4_0 table tied to the lm_head, float rows out. Out-of-range ids: zero rows and status 1, as
// the other lookups.
#include <cmath>

#include "kernels/embedding/embedding_cases.h"
#include "kernels/embedding/embedding_ref.h"

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
    auto tokens =
        std::make_shared<const std::vector<uint32_t>>(make_tokens(gen, t, v, p.at("bad")));
    auto blocks = std::make_shared<std::vector<BlockQ4_0>>(size_t(v) * d / 32);
    for (BlockQ4_0& b : *blocks) {
      b.d = _Float16(gen.uniform(-0.1, 0.1));
      for (uint8_t& q : b.qs) q = uint8_t(gen.next_u64());
    }
    auto reference = [=](std::vector<double>& ref) {
      ref = lookup_q4_0_ref(*tokens, *blocks, v, d, 1.0);
    };
    // (nibble - 8) * d is exact in float, and the scale is 1: exact.
    return prepare_lookup<float>({"embedding_lookup_q4_0_float", t, v, d, tg, 1.0f, Tolerance{}},
                                 tokens, ctx.buffer(*blocks), reference, ctx);
  }
};

METALSIM_REGISTER_SPEC(EmbeddingQ4_0FloatSpec);

}  // namespace
}  // namespace metalsim::kernels::embedding
