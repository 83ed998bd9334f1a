// Specs of the quantized_matmul family: matmul_q4_0, matmul_q8_0, matmul_q4_k, matmul_q5_k
// (GGML layouts) and the document's matmul_q4_0_as_documented, matmul_q8_0_as_documented.
// Orientation: C [M, N] = A [M, K] (quantized, blocks along K) x B [K, N] (half). N = 1: mat-vec.
#include <cmath>

#include "kernels/quantized_matmul/quantized_matmul_baseline.h"
#include "kernels/quantized_matmul/quantized_matmul_ref.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/spec_names.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::kernels::quantized_matmul {
namespace {

// ------------------------------ random blocks (every bit pattern GGML can hold)
uint8_t byte(spec::InputGenerator& g) { return uint8_t(g.next_u64()); }

void randomize(spec::InputGenerator& g, BlockQ4_0& b) {
  b.d = half_t(g.uniform(-0.02, 0.02));
  for (uint8_t& q : b.qs) q = byte(g);
}
void randomize(spec::InputGenerator& g, BlockQ8_0& b) {
  b.d = half_t(g.uniform(-0.002, 0.002));
  for (int8_t& q : b.qs) q = int8_t(g.integer(-127, 127));
}
template <class Block>
void randomize_k(spec::InputGenerator& g, Block& b) {
  b.d = half_t(g.uniform(0, 0.002));
  b.dmin = half_t(g.uniform(0, 0.002));
  for (uint8_t& s : b.scales) s = byte(g);
  for (uint8_t& q : b.qs) q = byte(g);
}
void randomize(spec::InputGenerator& g, BlockQ4_K& b) { randomize_k(g, b); }
void randomize(spec::InputGenerator& g, BlockQ5_K& b) {
  randomize_k(g, b);
  for (uint8_t& h : b.qh) h = byte(g);
}

enum class Port { ggml, q4_0_documented, q8_0_documented };

template <class Block, int64_t kBlock>
class QuantSpec : public spec::NamedSpec {
 public:
  QuantSpec(std::string name, std::string summary, Port port)
      : NamedSpec(std::move(name), "quantized_matmul", std::move(summary)), port_(port) {}
  std::vector<ParamDef> params() const override {
    return {{"M", 1, 1 << 16, {}, {1, 31, 32, 33}, 33, "rows of A and C"},
            {"N", 1, 1 << 12, {}, {1, 3, 17}, 3, "columns of B and C (1: mat-vec)"},
            {"K",
             1,
             1 << 16,
             {},
             {kBlock, 2 * kBlock, 3 * kBlock},
             2 * kBlock,
             "inner dimension, a multiple of " + std::to_string(kBlock)},
            {"tgx", 1, 1024, {}, {1, 8, 32}, 8, "threadgroup width (along N)"},
            {"tgy", 1, 1024, {}, {1, 8, 64}, 8, "threadgroup height (along M)"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    std::string w;
    if (p.at("M") < 1 || p.at("N") < 1 || p.at("K") < 1) w = "M, N, K >= 1";
    else if (port_ == Port::ggml && p.at("K") % kBlock != 0)
      w = "K = " + std::to_string(p.at("K")) + " is not a multiple of the " +
          std::to_string(kBlock) +
          "-element block: a GGML row cannot hold it, and the kernel would drop the tail";
    else if (p.at("tgx") < 1 || p.at("tgy") < 1 || p.at("tgx") * p.at("tgy") > 1024)
      w = "1 <= tgx * tgy <= 1024";
    if (why) *why = w;
    return w.empty();
  }
  // docs/findings/quantized_matmul.md.
  std::vector<spec::Finding> findings() const override {
    if (port_ == Port::q4_0_documented)
      return {{{{"M", 1}, {"N", 1}, {"K", 32}, {"tgx", 1}, {"tgy", 1}},
               "mismatch",
               "nibbles read interleaved"}};
    if (port_ == Port::q8_0_documented)
      return {{{{"M", 1}, {"N", 1}, {"K", 33}, {"tgx", 1}, {"tgy", 1}},
               "mismatch",
               "K % 32 tail dropped"}};
    return {};
  }
  std::vector<Params> sweep() const override {
    if (port_ != Port::ggml) return finding_cases();
    return {{{"M", 1}, {"N", 1}, {"K", kBlock}, {"tgx", 1}, {"tgy", 1}},
            {{"M", 33},
             {"N", 1},
             {"K", 2 * kBlock},
             {"tgx", 1},
             {"tgy", 64}},  // mat-vec, partial threadgroup
            {{"M", 31}, {"N", 3}, {"K", 3 * kBlock}, {"tgx", 8}, {"tgy", 8}},
            {{"M", 32}, {"N", 17}, {"K", kBlock}, {"tgx", 32}, {"tgy", 32}}};
  }
  std::vector<Params> bench_cases() const override {
    return {{{"M", 4096}, {"N", 1}, {"K", 4096}, {"tgx", 1}, {"tgy", 64}},
            {{"M", 11008}, {"N", 1}, {"K", 4096}, {"tgx", 1}, {"tgy", 64}}};
  }
  std::string known_bug() const override {
    if (port_ == Port::q4_0_documented)
      return "reads byte i as elements 2i and 2i+1 (GGML stores j and j+16); K % 32 dropped "
             "silently";
    if (port_ == Port::q8_0_documented)
      return "K not a multiple of 32: the tail is dropped silently";
    return {};
  }

  // Weights (at most 2 bytes per element in any of the block formats), B and C (half); the
  // spec's own copies of both and the double reference, with the weights dequantized.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t M = uint64_t(p.at("M")), N = uint64_t(p.at("N")), K = uint64_t(p.at("K"));
    return {2 * M * K + 2 * K * N + 2 * M * N, 2 * M * K + 8 * M * K + 2 * K * N + 8 * M * N};
  }

  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t m = uint32_t(p.at("M")), n = uint32_t(p.at("N")), k = uint32_t(p.at("K"));
    const uint32_t tgx = uint32_t(p.at("tgx")), tgy = uint32_t(p.at("tgy"));
    const int64_t per_row = (k + kBlock - 1) / kBlock;
    spec::InputGenerator gen(ctx.seed());
    auto a = std::make_shared<std::vector<Block>>(size_t(m * per_row));
    for (Block& b : *a) randomize(gen, b);
    auto bvec =
        std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(size_t(k) * n, -1, 1));
    auto ref = std::make_shared<std::vector<double>>();
    auto& dev = ctx;
    auto bb = dev.buffer(*bvec), out = dev.buffer(size_t(m) * n * sizeof(half_t));
    NS::SharedPtr<MTL::Buffer> ba, bscales;
    if constexpr (std::is_same_v<Block, BlockQ8_0>) {
      if (port_ == Port::q8_0_documented) {  // the document's split arrays: scales, then quants
        std::vector<half_t> scales;
        std::vector<int8_t> quants;
        for (const Block& b : *a) {
          scales.push_back(b.d);
          quants.insert(quants.end(), b.qs, b.qs + 32);
        }
        bscales = dev.buffer(scales);
        ba = dev.buffer(quants);
      }
    }
    if (!ba) ba = dev.buffer(*a);
    const size_t count = size_t(m) * n;
    auto poison = [=] { spec::poison(static_cast<half_t*>(out->contents()), count); };
    poison();
    auto c = std::make_unique<spec::StandardCase>();
    const std::string kernel = name();
    c->kernel = [=, &ctx](CaseResult& r) {
      ctx.dispatch(
          kernel,
          [&](auto* e) {
            uint32_t i = 0;
            if (bscales) e->setBuffer(bscales.get(), 0, i++);
            e->setBuffer(ba.get(), 0, i++);
            e->setBuffer(bb.get(), 0, i++);
            e->setBuffer(out.get(), 0, i++);
            e->setBytes(&m, 4, i++);
            e->setBytes(&n, 4, i++);
            e->setBytes(&k, 4, i++);
          },
          {n, m, 1}, {tgx, tgy, 1}, spec::CaseContext::Grid::threads, r);
    };
    c->reference = [=] { *ref = matmul_ref(*a, per_row, *bvec, m, n, k); };
    // Dequantization is exact in float; what remains is float accumulation order (K * 2^-24
    // relative, against the output scale) and the half output (half an ulp).
    const Tolerance tol{0x1p-25, 0x1p-11 + (k + 16) * 0x1p-24,
                        "half output + float accumulation over K"};
    c->check = [=](CaseResult& r) {
      spec::compare_output("C", spec::contents<half_t>(out), ref->data(), count, tol, r);
    };
    c->expose("C", out);
    c->poison_again = poison;
    auto fast_out = std::make_shared<std::vector<half_t>>(count);
    c->baseline = [=] {
      matmul_baseline(a->data(), per_row, bvec->data(), fast_out->data(), m, n, k);
    };
    return c;
  }

 private:
  Port port_;
};

// One name per block format: a template's comma cannot stand in a macro argument.
using Q4_0Spec = QuantSpec<BlockQ4_0, 32>;
using Q8_0Spec = QuantSpec<BlockQ8_0, 32>;
using Q4_KSpec = QuantSpec<BlockQ4_K, 256>;
using Q5_KSpec = QuantSpec<BlockQ5_K, 256>;

METALSIM_REGISTER_SPEC_AS(q4_0, Q4_0Spec, "matmul_q4_0",
                          "C = A x B, A in GGML Q4_0 blocks, B and C half", Port::ggml);
METALSIM_REGISTER_SPEC_AS(q8_0, Q8_0Spec, "matmul_q8_0",
                          "C = A x B, A in GGML Q8_0 blocks, B and C half", Port::ggml);
METALSIM_REGISTER_SPEC_AS(q4_k, Q4_KSpec, "matmul_q4_k",
                          "C = A x B, A in GGML Q4_K super-blocks, B and C half", Port::ggml);
METALSIM_REGISTER_SPEC_AS(q5_k, Q5_KSpec, "matmul_q5_k",
                          "C = A x B, A in GGML Q5_K super-blocks, B and C half", Port::ggml);
METALSIM_REGISTER_SPEC_AS(q4_0_as_documented, Q4_0Spec, "matmul_q4_0_as_documented",
                          "ADR-003 Q4_0 matmul as written (interleaved nibbles)",
                          Port::q4_0_documented);
METALSIM_REGISTER_SPEC_AS(q8_0_as_documented, Q8_0Spec, "matmul_q8_0_as_documented",
                          "ADR-003 Q8_0 matmul as written (split scale/quant arrays)",
                          Port::q8_0_documented);

}  // namespace
}  // namespace metalsim::kernels::quantized_matmul
