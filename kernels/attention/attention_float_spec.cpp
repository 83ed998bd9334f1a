// Specs of the attention family's float kernels, used by the model runner (docs/pipeline.md):
// decode_attention_float (decode_attention on float Q, K, V, O) and kv_append_float (one token's
// K and V rows into a cache slot). Q, K and V are half values widened to float, so the family's
// reference (attention_ref.h, in double from half inputs) is exact for them.
#include <cmath>
#include <limits>
#include <tuple>

#include "kernels/attention/attention_inputs.h"
#include "kernels/spec/spec_names.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::kernels::attention {
namespace {

std::vector<float> widen(const std::vector<half_t>& v) { return {v.begin(), v.end()}; }

// ------------------------------ decode_attention_float
class DecodeAttentionFloatSpec : public spec::NamedSpec {
 public:
  DecodeAttentionFloatSpec()
      : NamedSpec("decode_attention_float", "attention",
                  "decode_attention on float Q, K, V and O (a float KV cache)") {}
  std::vector<ParamDef> params() const override {
    return {
        {"heads", 1, 64, {}, {1, 4, 9}, 4, "query heads"},
        {"kv_heads", 1, 64, {}, {1, 2, 3}, 2, "key/value heads, dividing heads (GQA)"},
        {"head_dim", 1, 128, {}, {1, 64, 128}, 64, "dimension per head"},
        {"kv_len", 1, 1 << 16, {}, {1, 31, 32, 33, 129}, 33, "valid cache entries"},
        {"cache_slack", 0, 4096, {}, {0, 3}, 0, "cache capacity beyond kv_len (NaN-filled)"},
        {"layout", 0, 1, {0, 1}, {0, 1}, 0, "cache 0: [Hkv,cap,D], 1: [cap,Hkv*D] (the model's)"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    std::string w;
    if (p.at("heads") < 1 || p.at("kv_heads") < 1 || p.at("heads") % p.at("kv_heads") != 0)
      w = "kv_heads must divide heads";
    else if (p.at("head_dim") < 1 || p.at("head_dim") > 128) w = "1 <= head_dim <= 128";
    else if (p.at("kv_len") < 1 || p.at("cache_slack") < 0) w = "kv_len >= 1, cache_slack >= 0";
    else if ((p.at("kv_len") + p.at("cache_slack")) * p.at("kv_heads") * p.at("head_dim") >
             (1 << 22))
      w = "the cache is over 2^22 floats (a fuzzed case stays small)";
    if (why) *why = w;
    return w.empty();
  }
  std::vector<Params> sweep() const override {
    return {{{"heads", 1}, {"kv_heads", 1}, {"head_dim", 1}, {"kv_len", 1}},
            {{"heads", 4}, {"kv_heads", 2}, {"head_dim", 64}, {"kv_len", 31}, {"cache_slack", 3}},
            {{"heads", 4}, {"kv_heads", 1}, {"head_dim", 128}, {"kv_len", 129}, {"layout", 1}},
            {{"heads", 9},
             {"kv_heads", 3},
             {"head_dim", 64},
             {"kv_len", 257},
             {"cache_slack", 3},
             {"layout", 1}}};
  }
  // q, k, v (the cache with its slack) and o in float; the half copies and the reference.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t qn = uint64_t(p.at("heads")) * uint64_t(p.at("head_dim"));
    const uint64_t kvn = uint64_t(p.at("kv_heads")) *
                         uint64_t(p.at("kv_len") + p.at("cache_slack")) *
                         uint64_t(p.at("head_dim"));
    return {8 * qn + 8 * kvn, (2 + 8) * qn + 4 * kvn};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const int kv_len = int(p.at("kv_len")), capacity = kv_len + int(p.at("cache_slack"));
    auto a = std::make_shared<const AttentionProblem>(
        decode_problem(1, int(p.at("heads")), int(p.at("kv_heads")), int(p.at("head_dim")), kv_len,
                       capacity, p.at("layout") != 0));
    spec::InputGenerator gen(ctx.seed());
    auto in = std::make_shared<const AttentionInputs>(make_inputs(*a, capacity, gen));
    const size_t qn = in->q.size();
    auto ref = std::make_shared<std::vector<double>>(qn);
    auto magnitude = std::make_shared<std::vector<double>>(qn);
    auto bq = ctx.buffer(widen(in->q)), bk = ctx.buffer(widen(in->k)),
         bv = ctx.buffer(widen(in->v));
    auto out = ctx.buffer(qn * sizeof(float));
    auto poison = [=] { spec::poison(static_cast<float*>(out->contents()), qn); };
    poison();
    const DecodeParams dp = decode_params(*a);
    auto c = std::make_unique<spec::StandardCase>();
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          "decode_attention_float",
          [&](auto* e) {
            spec::set_buffers(e, {bq.get(), bk.get(), bv.get(), out.get()});
            e->setBytes(&dp, sizeof dp, 4);
          },
          {uint32_t(a->heads), 1, 1}, {128, 1, 1}, spec::CaseContext::Grid::threadgroups, r);
    };
    c->reference = [=] {
      attention_reference(*a, in->q.data(), in->k.data(), in->v.data(), ref->data());
      attention_magnitudes(*a, in->q.data(), in->k.data(), in->v.data(), magnitude->data());
    };
    // Float throughout: the scores' dot products over head_dim, exp, and sums over kv_len; each
    // output's error scales with its weighted sum of |v| (it may cancel near 0).
    const Tolerance tol{0, (a->head_dim + a->seq_kv + 64) * 0x1p-24,
                        "float scores over head_dim, exp, sums over kv_len, of sum p|v| / sum p"};
    c->check = [=](CaseResult& r) {
      spec::compare_output_of_sums("O", spec::contents<float>(out), ref->data(), *magnitude, qn,
                                   tol, r);
    };
    c->expose("O", out);
    c->poison_again = poison;
    return c;
  }
};

// ------------------------------ kv_append_float
// A cache of `slots` rows of `count` floats, poisoned; the kernel writes row `slot` from K and
// V bound at the row's offset. Exact copy; every other row must keep its poison.
class KvAppendFloatSpec : public spec::NamedSpec {
 public:
  KvAppendFloatSpec()
      : NamedSpec("kv_append_float", "attention",
                  "one token's K and V rows copied into a float cache slot (by buffer offset)") {}
  std::vector<ParamDef> params() const override {
    return {{"count",
             1,
             1 << 16,
             {},
             {1, 192, 255, 256, 257},
             192,
             "floats per row (kv_heads * head_dim)"},
            {"slots", 1, 4096, {}, {1, 2, 5}, 5, "cache rows"},
            {"slot", 0, 4095, {}, {0, 4}, 3, "the row written"},
            {"tg", 1, 1024, {}, {1, 32, 256}, 256, "threads per threadgroup"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    std::string w;
    if (p.at("count") < 1 || p.at("slots") < 1) w = "count, slots >= 1";
    else if (p.at("slot") < 0 || p.at("slot") >= p.at("slots")) w = "0 <= slot < slots";
    else if (p.at("tg") < 1 || p.at("tg") > 1024) w = "1 <= tg <= 1024";
    else if (p.at("count") * p.at("slots") > (1 << 22)) w = "count * slots <= 2^22";
    if (why) *why = w;
    return w.empty();
  }
  std::vector<Params> sweep() const override {
    return {{{"count", 1}, {"slots", 1}, {"slot", 0}, {"tg", 1}},
            {{"count", 257}, {"slots", 5}, {"slot", 4}, {"tg", 256}},
            {{"count", 192}, {"slots", 5}, {"slot", 2}, {"tg", 32}}};
  }
  // the new k and v and both caches (slots rows each) in float, and the kept inputs.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("count")), cache = n * uint64_t(p.at("slots"));
    return {8 * n + 8 * cache, 8 * n + 8 * cache};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t count = uint32_t(p.at("count")), slots = uint32_t(p.at("slots")),
                   tg = uint32_t(p.at("tg"));
    const size_t offset = size_t(p.at("slot")) * count * sizeof(float);
    spec::InputGenerator gen(ctx.seed());
    auto k = std::make_shared<std::vector<float>>(gen.uniform_vector<float>(count, -1, 1));
    auto v = std::make_shared<std::vector<float>>(gen.uniform_vector<float>(count, -1, 1));
    auto bk = ctx.buffer(*k), bv = ctx.buffer(*v);
    const size_t cache_n = size_t(slots) * count;
    auto kc = ctx.buffer(cache_n * sizeof(float)), vc = ctx.buffer(cache_n * sizeof(float));
    auto poison = [=] {
      spec::poison(static_cast<float*>(kc->contents()), cache_n);
      spec::poison(static_cast<float*>(vc->contents()), cache_n);
    };
    poison();
    auto c = std::make_unique<spec::StandardCase>();
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          "kv_append_float",
          [&](auto* e) {
            spec::set_buffers(e, {bk.get(), bv.get()});
            e->setBuffer(kc.get(), offset, 2);
            e->setBuffer(vc.get(), offset, 3);
            e->setBytes(&count, sizeof count, 4);
          },
          {count, 1, 1}, {tg, 1, 1}, spec::CaseContext::Grid::threads, r);
    };
    c->reference = [] {};  // the row is the input itself
    c->check = [=](CaseResult& r) {
      const std::vector<double> kref(k->begin(), k->end()), vref(v->begin(), v->end());
      const size_t first = offset / sizeof(float);
      for (auto [name, cache, ref] :
           {std::tuple{"k_cache", kc, &kref}, std::tuple{"v_cache", vc, &vref}}) {
        const float* row = spec::contents<float>(cache);
        spec::compare_output(name, row + first, ref->data(), count, Tolerance{}, r);
        for (size_t i = 0; i < cache_n; ++i)  // a write outside the slot is an error
          if ((i < first || i >= first + count) && !spec::is_poison(row[i]) &&
              !std::isinf(r.max_error)) {
            r.max_error = double(INFINITY);
            r.worst =
                std::string(name) + "[" + std::to_string(i) + "], outside the slot, was written";
          }
      }
    };
    c->expose("k_cache", kc);
    c->expose("v_cache", vc);
    c->poison_again = poison;
    return c;
  }
};

METALSIM_REGISTER_SPEC(DecodeAttentionFloatSpec);
METALSIM_REGISTER_SPEC(KvAppendFloatSpec);

}  // namespace
}  // namespace metalsim::kernels::attention
