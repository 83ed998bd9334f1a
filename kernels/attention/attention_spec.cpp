// The attention family's specs: flash_attention_forward, flash_attention_forward_masked,
// decode_attention and flash_attention_forward_as_documented. One PreparedCase serves all four;
// the spec classes only differ in parameters, sweep and dispatch geometry.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernels/attention/attention_baseline.h"
#include "kernels/attention/attention_inputs.h"
#include "kernels/attention/attention_ref.h"
#include "kernels/attention/attention_spec.h"
#include "kernels/attention/attention_tolerance.h"
#include "kernels/spec/case_context.h"
#include "kernels/spec/case_runner.h"
#include "kernels/spec/compare.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/spec_names.h"

namespace metalsim::kernels::attention {
namespace {

// ------------------------------ kernel argument structs (mirrors of attention.metal)

struct AttentionParams {  // the document's
  uint32_t seq_q, seq_kv, head_dim, num_heads;
  float scale;
  uint32_t kv_cache_offset;
};

enum class Kind { documented, flash, masked, decode };

constexpr int64_t kMaxElements = int64_t(1) << 27;  // per tensor: keeps a fuzzed case in memory
constexpr int64_t kMaxWork = int64_t(1) << 31;  // B*H*seq_q*seq_kv*D: a fuzzed case runs in seconds

// Threadgroup memory (bytes) each kernel asks for, per head_dim.
int64_t documented_threadgroup_bytes(int64_t d) {
  return (3 * 64 * d * 2 + 64 * 64 * 4 + 15) / 16 * 16;
}

// ------------------------------ one prepared case

class AttentionCase : public spec::PreparedCase {
 public:
  AttentionCase(Kind kind, const Params& p, spec::CaseContext& ctx) : kind_(kind), ctx_(ctx) {
    auto get = [&](const char* n, int64_t dflt) {
      return p.contains(n) ? int(p.at(n)) : int(dflt);
    };
    const int heads = get("heads", 1);
    const int kv_heads = get("kv_heads", 0) == 0 ? heads : get("kv_heads", 0);
    const bool interleaved = get("layout", 0) == 1;
    const int seq_kv = kind == Kind::decode ? get("kv_len", 1) : get("seq_kv", 1);
    const int capacity = seq_kv + get("cache_slack", 0);
    AttentionProblem& a = problem_;
    if (kind == Kind::decode) {
      a = decode_problem(get("batch", 1), heads, kv_heads, get("head_dim", 64), seq_kv, capacity,
                         interleaved);
    } else {
      a.batch = get("batch", 1);
      a.heads = heads;
      a.kv_heads = kv_heads;
      a.head_dim = get("head_dim", 64);
      a.seq_q = get("seq_q", 1);
      a.seq_kv = seq_kv;
      a.causal = kind == Kind::documented || get("causal", 0) != 0;
      a.kv_offset = get("kv_offset", 0);
      a.scale = kernel_scale(a.head_dim);
      auto view = interleaved ? interleaved_view : contiguous_view;
      a.q = a.o = view(a.heads, a.seq_q, a.head_dim);
      a.k = a.v = view(a.kv_heads, a.seq_kv, a.head_dim);
    }

    spec::InputGenerator gen(ctx.seed());
    AttentionInputs inputs = make_inputs(a, capacity, gen);
    q_ = std::move(inputs.q);
    k_ = std::move(inputs.k);
    v_ = std::move(inputs.v);
    if (kind == Kind::masked)
      make_mask(gen, get("mask_type", 0), get("mask_batch", 0), get("masked_rows", 0));
    o_.resize(q_.size());
    spec::poison(o_.data(), o_.size());
    ref_.assign(q_.size(), 0.0);

    spec::CaseContext& dev = ctx;
    qb_ = dev.buffer(q_);
    kb_ = dev.buffer(k_);
    vb_ = dev.buffer(v_);
    ob_ = dev.buffer(o_);
    if (kind == Kind::masked) mb_ = mask_half_ ? dev.buffer(mask_h_) : dev.buffer(mask_f_);
  }

  std::vector<OutputView> outputs() const override {
    return {{"O", ob_->contents(), ob_->length()}};
  }

  void run_kernel() override {
    MTL::CommandBuffer* cb = ctx_.command_buffer();
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(ctx_.pipeline(kernel_name()));
    enc->setBuffer(qb_.get(), 0, 0);
    enc->setBuffer(kb_.get(), 0, 1);
    enc->setBuffer(vb_.get(), 0, 2);
    enc->setBuffer(ob_.get(), 0, 3);
    const AttentionProblem& a = problem_;
    const NS::UInteger bq = kind_ == Kind::documented ? 64 : 32;
    const NS::UInteger q_tiles = (NS::UInteger(a.seq_q) + bq - 1) / bq;
    if (kind_ == Kind::documented) {
      const AttentionParams p{uint32_t(a.seq_q), uint32_t(a.seq_kv), uint32_t(a.head_dim),
                              uint32_t(a.heads), float(a.scale),     uint32_t(a.kv_offset)};
      enc->setBytes(&p, sizeof p, 4);
      enc->setThreadgroupMemoryLength(NS::UInteger(documented_threadgroup_bytes(a.head_dim)), 0);
      enc->dispatchThreadgroups(MTL::Size(q_tiles, a.heads, a.batch), MTL::Size(256, 1, 1));
    } else if (kind_ == Kind::decode) {
      const DecodeParams p = decode_params(a);
      enc->setBytes(&p, sizeof p, 4);
      enc->dispatchThreadgroups(MTL::Size(a.heads, a.batch, 1), MTL::Size(128, 1, 1));
    } else {
      const FlashAttentionParams p = flash_params(a);
      enc->setBytes(&p, sizeof p, 4);
      if (kind_ == Kind::masked) enc->setBuffer(mb_.get(), 0, 5);
      enc->setThreadgroupMemoryLength(NS::UInteger(flash_threadgroup_bytes(a.head_dim)), 0);
      enc->dispatchThreadgroups(MTL::Size(q_tiles, a.heads, a.batch), MTL::Size(128, 1, 1));
    }
    enc->endEncoding();
    result_.reports.clear();
    spec::CaseContext::commit(cb, result_);
  }

  void run_reference() override {
    AttentionProblem a = problem_;
    if (kind_ == Kind::masked) a.mask = mask_ref_.data();
    attention_reference(a, q_.data(), k_.data(), v_.data(), ref_.data());
  }

  bool run_baseline() override {
    AttentionProblem a = problem_;
    if (kind_ == Kind::masked) a.mask = mask_ref_.data();
    fast_out_.resize(o_.size());
    attention_baseline(a, q_.data(), k_.data(), v_.data(), fast_out_.data());
    return true;
  }

  CaseResult compare() override {
    CaseResult r = result_;
    const auto* got = static_cast<const half_t*>(ob_->contents());
    spec::compare_output("O", got, ref_.data(), ref_.size(), attention_tolerance(), r);
    spec::finish(r);
    return r;
  }

  // For run_attention: the kernel's output and the reference's.
  void outputs(AttentionRun& run) const {
    const auto* got = static_cast<const half_t*>(ob_->contents());
    run.got.assign(got, got + o_.size());
    run.ref = ref_;
    run.row_stride = problem_.o.seq;
  }

  void repoison() override { spec::poison(static_cast<half_t*>(ob_->contents()), o_.size()); }

 private:
  const char* kernel_name() const {
    switch (kind_) {
      case Kind::documented: return "flash_attention_forward_as_documented";
      case Kind::flash: return "flash_attention_forward";
      case Kind::masked:
        return mask_half_ ? "flash_attention_forward_masked_half"
                          : "flash_attention_forward_masked_float";
      case Kind::decode: return "decode_attention";
    }
    return "";
  }

  // 0 attends, -inf ignores, and a few finite biases in [-3, 0]; masked_rows: every third row
  // (1, 4, 7, ...) fully masked out.
  void make_mask(spec::InputGenerator& gen, int type, int per_batch, int masked_rows) {
    AttentionProblem& a = problem_;
    mask_half_ = type == 0;
    const int mb = per_batch ? a.batch : 1;
    a.mask_batch_stride = per_batch ? int64_t(a.seq_q) * a.seq_kv : 0;
    const size_t n = size_t(mb) * a.seq_q * a.seq_kv;
    mask_ref_.resize(n);
    const double inf = std::numeric_limits<double>::infinity();
    for (size_t e = 0; e < n; ++e) {
      const int row = int((e / size_t(a.seq_kv)) % size_t(a.seq_q));
      const double u = gen.uniform(0.0, 1.0);
      double x = u < 0.3 ? -inf : u < 0.8 ? 0.0 : gen.uniform(-3.0, 0.0);
      if (masked_rows && row % 3 == 1) x = -inf;
      mask_ref_[e] = mask_half_ ? double(half_t(x)) : double(float(x));
    }
    if (mask_half_)
      for (double x : mask_ref_) mask_h_.push_back(half_t(x));
    else
      for (double x : mask_ref_) mask_f_.push_back(float(x));
  }

  Kind kind_;
  spec::CaseContext& ctx_;
  AttentionProblem problem_;
  std::vector<half_t> q_, k_, v_, o_, mask_h_;
  std::vector<float> mask_f_;
  std::vector<double> mask_ref_, ref_;
  std::vector<half_t> fast_out_;  // the baseline's O
  bool mask_half_ = true;
  NS::SharedPtr<MTL::Buffer> qb_, kb_, vb_, ob_, mb_;
  CaseResult result_;
};

// ------------------------------ parameters

ParamDef def(std::string name, int64_t lo, int64_t hi, int64_t fallback,
             std::vector<int64_t> bounds, std::string help, std::vector<int64_t> choices = {}) {
  return {std::move(name), lo, hi, std::move(choices), std::move(bounds), fallback,
          std::move(help)};
}

const std::vector<int64_t> kSeqBounds = {1, 31, 32, 33, 63, 64, 65, 1024};
const std::vector<int64_t> kHeadDims = {64, 80, 96, 128};

std::vector<ParamDef> shape_params(bool decode) {
  std::vector<ParamDef> v = {def("batch", 1, 8, 1, {1, 2}, "batch size"),
                             def("heads", 1, 64, 1, {1, 2, 4, 8}, "query heads"),
                             def("kv_heads", 0, 64, 0, {0, 1, 2},
                                 "key/value heads, dividing heads (GQA); 0: as many as heads")};
  if (decode) {
    v.push_back(def("head_dim", 1, 128, 64, {32, 64, 80, 96, 128}, "dimension per head"));
    v.push_back(
        def("kv_len", 1, 1 << 16, 128, {1, 31, 32, 33, 127, 128, 129}, "valid cache entries"));
    v.push_back(
        def("cache_slack", 0, 4096, 0, {0, 3}, "cache capacity beyond kv_len (NaN-filled)"));
    v.push_back(def("layout", 0, 1, 0, {0, 1}, "cache 0: [B,Hkv,cap,D], 1: [B,cap,Hkv*D]", {0, 1}));
    return v;
  }
  v.push_back(def("head_dim", 64, 128, 64, kHeadDims, "dimension per head", kHeadDims));
  v.push_back(def("seq_q", 1, 1 << 16, 32, kSeqBounds, "query rows"));
  v.push_back(def("seq_kv", 1, 1 << 16, 32, kSeqBounds, "key/value rows"));
  v.push_back(
      def("layout", 0, 1, 0, {0, 1}, "0: contiguous [B,H,L,D], 1: view of [B,L,H*D]", {0, 1}));
  return v;
}

int64_t value(const Params& p, const char* name, int64_t fallback) {
  return p.contains(name) ? p.at(name) : fallback;
}

bool shape_valid(const Params& p, std::string* why) {
  const int64_t heads = value(p, "heads", 1);
  const int64_t kv = value(p, "kv_heads", 0) == 0 ? heads : value(p, "kv_heads", 0);
  if (heads % kv != 0) return *why = "kv_heads must divide heads", false;
  const int64_t seq_q = value(p, "seq_q", 1);
  const int64_t seq_kv = value(p, "seq_kv", 0) + value(p, "kv_len", 0) + value(p, "cache_slack", 0);
  const int64_t bd = value(p, "batch", 1) * value(p, "head_dim", 64);
  if (bd * heads * seq_q > kMaxElements || bd * kv * seq_kv > kMaxElements)
    return *why = "tensors over 2^27 elements", false;
  if (bd * heads * seq_q * seq_kv > kMaxWork)
    return *why = "batch*heads*seq_q*seq_kv*head_dim over 2^31", false;
  return true;
}

// ------------------------------ the specs

class AttentionSpecBase : public spec::NamedSpec {
 public:
  AttentionSpecBase(std::string name, std::string summary)
      : NamedSpec(std::move(name), "attention", std::move(summary)) {}
  bool valid(const Params& p, std::string* why) const override {
    for (const ParamDef& d : params()) {
      const int64_t x = p.at(d.name);
      const bool ok = d.choices.empty()
                          ? x >= d.min && x <= d.max
                          : std::find(d.choices.begin(), d.choices.end(), x) != d.choices.end();
      if (!ok) return *why = d.name + " out of range", false;
    }
    return shape_valid(p, why);
  }
  // Q, K, V, O (half) and the mask (at most float, one per batch); the spec keeps each input,
  // the mask in double and the reference in double.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t heads = uint64_t(value(p, "heads", 1));
    const uint64_t kv_heads =
        value(p, "kv_heads", 0) == 0 ? heads : uint64_t(value(p, "kv_heads", 0));
    const uint64_t bd = uint64_t(value(p, "batch", 1)) * uint64_t(value(p, "head_dim", 64));
    const uint64_t seq_q = uint64_t(value(p, "seq_q", 1));
    const uint64_t seq_kv =
        uint64_t(value(p, "seq_kv", 0) + value(p, "kv_len", 0) + value(p, "cache_slack", 0));
    const uint64_t q = bd * heads * seq_q, kv = bd * kv_heads * seq_kv;
    const uint64_t mask = uint64_t(value(p, "batch", 1)) * seq_q * seq_kv;
    return {2 * (2 * q + 2 * kv) + 4 * mask, 2 * (2 * q + 2 * kv) + 8 * q + 12 * mask};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    return std::make_unique<AttentionCase>(kind(), p, ctx);
  }

 protected:
  virtual Kind kind() const = 0;
};

class FlashAttentionSpec : public AttentionSpecBase {
 public:
  FlashAttentionSpec()
      : AttentionSpecBase("flash_attention_forward",
                          "flash attention, half in/out, causal with kv_offset, GQA, strided "
                          "views; 192*D+4096 B threadgroup memory") {}
  std::vector<ParamDef> params() const override {
    auto v = shape_params(false);
    v.push_back(
        def("causal", 0, 1, 0, {0, 1}, "key j attends to row i when j <= kv_offset + i", {0, 1}));
    v.push_back(def("kv_offset", 0, 1 << 16, 0, {0, 1, 31, 32, 33}, "position of query row 0"));
    return v;
  }
  std::vector<Params> sweep() const override {
    return {
        {{"seq_q", 1}, {"seq_kv", 1}},
        {{"seq_q", 31}, {"seq_kv", 31}, {"head_dim", 80}, {"causal", 1}},
        {{"seq_q", 32}, {"seq_kv", 32}, {"head_dim", 96}},
        {{"seq_q", 33}, {"seq_kv", 33}, {"head_dim", 128}, {"causal", 1}},
        {{"seq_q", 33}, {"seq_kv", 65}, {"causal", 1}, {"kv_offset", 32}},
        {{"seq_q", 1}, {"seq_kv", 97}, {"head_dim", 128}, {"causal", 1}, {"kv_offset", 96}},
        {{"seq_q", 65}, {"seq_kv", 31}, {"head_dim", 80}},
        {{"seq_q", 40}, {"seq_kv", 33}, {"causal", 1}},
        {{"batch", 2},
         {"heads", 4},
         {"kv_heads", 2},
         {"seq_q", 17},
         {"seq_kv", 40},
         {"causal", 1},
         {"kv_offset", 23}},
        {{"heads", 4},
         {"kv_heads", 1},
         {"seq_q", 33},
         {"seq_kv", 33},
         {"head_dim", 96},
         {"causal", 1},
         {"layout", 1}},
        {{"batch", 2},
         {"heads", 2},
         {"kv_heads", 2},
         {"seq_q", 31},
         {"seq_kv", 64},
         {"head_dim", 128},
         {"layout", 1}},
        {{"heads", 3},
         {"kv_heads", 1},
         {"seq_q", 63},
         {"seq_kv", 95},
         {"head_dim", 80},
         {"causal", 1},
         {"kv_offset", 32},
         {"layout", 1}},
    };
  }
  std::vector<Params> bench_cases() const override {
    std::vector<Params> v;
    for (int64_t d : {64, 128})
      for (int64_t c : {0, 1})
        v.push_back({{"heads", 8},
                     {"kv_heads", 8},
                     {"seq_q", 1024},
                     {"seq_kv", 1024},
                     {"head_dim", d},
                     {"causal", c}});
    return v;
  }

 protected:
  Kind kind() const override { return Kind::flash; }
};

class MaskedAttentionSpec : public AttentionSpecBase {
 public:
  MaskedAttentionSpec()
      : AttentionSpecBase("flash_attention_forward_masked",
                          "flash attention with an additive mask [B or 1,1,seq_q,seq_kv] (half or "
                          "float); fully masked rows give 0") {}
  std::vector<ParamDef> params() const override {
    auto v = shape_params(false);
    v.push_back(def("mask_type", 0, 1, 0, {0, 1}, "0: half mask, 1: float mask", {0, 1}));
    v.push_back(def("mask_batch", 0, 1, 0, {0, 1}, "0: one mask for all batches, 1: one per batch",
                    {0, 1}));
    v.push_back(
        def("masked_rows", 0, 1, 0, {0, 1}, "1: rows 1, 4, 7, ... fully masked out", {0, 1}));
    return v;
  }
  std::vector<Params> sweep() const override {
    return {
        {{"seq_q", 1}, {"seq_kv", 1}},
        {{"seq_q", 33}, {"seq_kv", 31}, {"masked_rows", 1}},
        {{"batch", 2},
         {"heads", 2},
         {"kv_heads", 1},
         {"seq_q", 32},
         {"seq_kv", 65},
         {"head_dim", 80},
         {"mask_type", 1},
         {"mask_batch", 1}},
        {{"seq_q", 31}, {"seq_kv", 33}, {"head_dim", 128}, {"layout", 1}, {"masked_rows", 1}},
        {{"batch", 2},
         {"seq_q", 5},
         {"seq_kv", 40},
         {"head_dim", 96},
         {"mask_type", 1},
         {"masked_rows", 1}},
    };
  }
  std::vector<Params> bench_cases() const override {
    return {{{"heads", 8}, {"kv_heads", 8}, {"seq_q", 1024}, {"seq_kv", 1024}, {"head_dim", 64}},
            {{"heads", 8}, {"kv_heads", 8}, {"seq_q", 1024}, {"seq_kv", 1024}, {"head_dim", 128}}};
  }

 protected:
  Kind kind() const override { return Kind::masked; }
};

class DecodeAttentionSpec : public AttentionSpecBase {
 public:
  DecodeAttentionSpec()
      : AttentionSpecBase("decode_attention",
                          "one query token per head against a KV cache (GQA, any cache layout), "
                          "4.6 KiB threadgroup memory") {}
  std::vector<ParamDef> params() const override { return shape_params(true); }
  std::vector<Params> sweep() const override {
    return {
        {{"kv_len", 1}},
        {{"kv_len", 31}, {"head_dim", 80}, {"cache_slack", 3}},
        {{"kv_len", 32}, {"head_dim", 96}, {"layout", 1}},
        {{"kv_len", 33}, {"head_dim", 128}},
        {{"batch", 2},
         {"heads", 8},
         {"kv_heads", 2},
         {"kv_len", 129},
         {"cache_slack", 3},
         {"layout", 1}},
        {{"heads", 4}, {"kv_heads", 1}, {"kv_len", 257}, {"head_dim", 128}, {"cache_slack", 1}},
    };
  }
  std::vector<Params> bench_cases() const override {
    return {{{"heads", 32}, {"kv_heads", 8}, {"kv_len", 4096}, {"head_dim", 128}}};
  }

 protected:
  Kind kind() const override { return Kind::decode; }
};

class DocumentedAttentionSpec : public AttentionSpecBase {
 public:
  DocumentedAttentionSpec()
      : AttentionSpecBase("flash_attention_forward_as_documented",
                          "ADR-003's flash attention kernel as written (known bugs)") {}
  std::vector<ParamDef> params() const override {
    return {def("batch", 1, 8, 1, {1, 2}, "batch size"),
            def("heads", 1, 64, 1, {1, 2}, "heads"),
            def("kv_heads", 0, 64, 0, {0, 1},
                "heads of the KV cache (ADR-003's KVCache holds NumKVHeads); 0: as heads"),
            def("seq_q", 1, 1 << 16, 1, {1, 2, 63, 64, 65}, "query rows"),
            def("seq_kv", 1, 1 << 16, 1, {1, 2, 63, 64, 65}, "key/value rows"),
            def("head_dim", 1, 256, 32, {1, 32, 42, 43, 64, 128}, "dimension per head"),
            def("kv_offset", 0, 1 << 16, 0, {0, 1}, "kv_cache_offset: position of query row 0")};
  }
  // The smallest case of each finding (docs/findings/attention.md).
  std::vector<spec::Finding> findings() const override {
    return {
        {{{"seq_q", 1}, {"seq_kv", 1}, {"head_dim", 43}},
         "limit.threadgroup_memory",
         "384*D+16384 B over 32 KiB"},
        {{{"seq_q", 1}, {"seq_kv", 1}, {"head_dim", 64}},
         "limit.threadgroup_memory",
         "the same at head_dim 64"},
        {{{"seq_q", 2}, {"seq_kv", 2}, {"head_dim", 1}},
         "mismatch",
         "every row of a tile gets row 0's result"},
        {{{"heads", 2}, {"seq_q", 1}, {"seq_kv", 2}, {"head_dim", 8}},
         "bounds.device",
         "Q/O head offset uses seq_kv"},
        {{{"seq_q", 1}, {"seq_kv", 2}, {"head_dim", 1}, {"kv_offset", 1}},
         "mismatch",
         "kv_cache_offset never read"},
        {{{"heads", 2}, {"kv_heads", 1}, {"head_dim", 8}},
         "bounds.device",
         "K/V indexed by the query head"},
    };
  }
  std::vector<Params> sweep() const override { return finding_cases(); }
  std::string known_bug() const override {
    return "threadgroup memory 384*D+16384 B > 32 KiB from head_dim 43; output row i of a tile "
           "holds row 0's result; Q/O head offset uses seq_kv; causal mask ignores "
           "kv_cache_offset; K/V indexed by the query head (no GQA)";
  }

 protected:
  Kind kind() const override { return Kind::documented; }
};

}  // namespace

AttentionRun run_attention(const std::string& name, const Params& given,
                           const metalsim::ExecutionOptions& options, uint64_t seed) {
  const spec::KernelSpec* s = spec::SpecRegistry::find(name);
  if (s == nullptr || s->family() != "attention")
    throw std::invalid_argument("no attention spec " + name);
  auto ctx = spec::CaseRunner::shared().context(options, seed);
  auto prepared = s->prepare_case(s->complete(given), *ctx);
  auto& c = static_cast<AttentionCase&>(*prepared);
  AttentionRun run;
  run.result = spec::CaseRunner::execute(c);
  c.outputs(run);
  return run;
}

METALSIM_REGISTER_SPEC(FlashAttentionSpec);
METALSIM_REGISTER_SPEC(MaskedAttentionSpec);
METALSIM_REGISTER_SPEC(DecodeAttentionSpec);
METALSIM_REGISTER_SPEC(DocumentedAttentionSpec);

}  // namespace metalsim::kernels::attention
